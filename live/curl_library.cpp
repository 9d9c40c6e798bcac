// Loads libcurl by its soname (Debian's libcurl4 / libcurl4-openssl-dev).
#include "live/curl_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace locksim::live {

namespace {

constexpr const char* kLibcurl = "libcurl.so.4";

template <class F>
void bind(void* handle, const char* name, F& out) {
  void* symbol = dlsym(handle, name);
  if (!symbol) throw std::runtime_error(std::string(kLibcurl) + ": no symbol " + name);
  out = reinterpret_cast<F>(symbol);
}

CurlLibrary load() {
  void* handle = dlopen(kLibcurl, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("cannot load ") + kLibcurl + " (etcd's JSON gateway client; Debian package libcurl4): " +
                             (why ? why : "unknown error"));
  }
  CurlLibrary lib{};
  bind(handle, "curl_global_init", lib.global_init);
  bind(handle, "curl_easy_init", lib.easy_init);
  bind(handle, "curl_easy_setopt", lib.easy_setopt);
  bind(handle, "curl_easy_perform", lib.easy_perform);
  bind(handle, "curl_easy_cleanup", lib.easy_cleanup);
  bind(handle, "curl_easy_strerror", lib.easy_strerror);
  bind(handle, "curl_slist_append", lib.slist_append);
  bind(handle, "curl_slist_free_all", lib.slist_free_all);
  lib.global_init(CURL_GLOBAL_DEFAULT);
  return lib;  // the handle stays open for the life of the process
}

}  // namespace

const CurlLibrary& curl_library() {
  static const CurlLibrary lib = load();  // a failed load throws and is retried by the next call
  return lib;
}

}  // namespace locksim::live
