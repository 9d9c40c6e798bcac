// libcurl, loaded (dlopen) when the first etcd request is made, not linked.
//
// Only live runs on etcd talk HTTP, yet a linked libcurl drags its whole
// dependency tree (GnuTLS, Kerberos, LDAP, SSH, …) into every locksim
// process: ~15 M instructions of dynamic linking and library constructors
// before main, most of a cold `locksim hunt`. Loaded on demand, the cost is
// paid by the runs that use it. The functions are the ones
// etcd_http_client.cpp calls, with curl.h's own types.
#pragma once

#include <curl/curl.h>

namespace locksim::live {

struct CurlLibrary {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

// The loaded library, global-initialised once (thread-safe). Throws
// std::runtime_error naming the file and dlerror() if it cannot be loaded.
const CurlLibrary& curl_library();

}  // namespace locksim::live
