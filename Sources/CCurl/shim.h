#ifndef COMPANION_CCURL_SHIM_H
#define COMPANION_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call:
   these typed wrappers pass one argument of each kind the transport uses. */
static inline CURLcode ck_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ck_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ck_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ck_easy_setopt_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLMcode ck_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
/* The result code of a finished transfer (the member of a union in CURLMsg). */
static inline CURLcode ck_msg_result(const CURLMsg *message) { return message->data.result; }
/* CURLOPT_PREREQFUNCTION: called once the connection is up, right before the request is sent. */
static inline CURLcode ck_easy_setopt_prereq(CURL *handle, curl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
#endif
