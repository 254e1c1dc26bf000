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
/* A memory blob option (CURLOPT_CAINFO_BLOB, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB): libcurl copies the
   bytes before this returns, so the caller's buffer may go away at once. */
static inline CURLcode ck_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}
static inline CURLcode ck_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ck_easy_getinfo_certinfo(CURL *handle, struct curl_certinfo **value) {
    return curl_easy_getinfo(handle, CURLINFO_CERTINFO, value);
}
/* The result code of a finished transfer (the member of a union in CURLMsg). */
static inline CURLcode ck_msg_result(const CURLMsg *message) { return message->data.result; }
/* CURLOPT_PREREQFUNCTION: called once the connection is up, right before the request is sent. */
static inline CURLcode ck_easy_setopt_prereq(CURL *handle, curl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
/* The socket of a connect-only transfer (CURLINFO_ACTIVESOCKET), which the WebSocket polls. */
static inline CURLcode ck_easy_getinfo_socket(CURL *handle, curl_socket_t *value) {
    return curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, value);
}
#endif
