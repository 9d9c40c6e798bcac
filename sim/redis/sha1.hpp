// SHA-1 of a byte string as 40 lowercase hex digits: the name Redis gives a
// script (EVALSHA, SCRIPT LOAD) and what redis.sha1hex() returns. Written here
// because no library in the build provides one; FIPS 180-4, known-answer
// tested in tests/test_redis_engine.cpp. Not for security.
#pragma once

#include <string>
#include <string_view>

namespace locksim::sim::redis {

std::string sha1_hex(std::string_view data);

}  // namespace locksim::sim::redis
