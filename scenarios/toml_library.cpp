// toml++'s implementation, compiled into locksim_core instead of linked as
// Debian's libtomlplusplus.so (one shared library fewer to map at every
// process start; CMakeLists.txt says why). Every other file includes
// <toml++/toml.h> for the declarations only (TOML_HEADER_ONLY=0).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
