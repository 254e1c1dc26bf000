#ifndef COMPANION_COPENSSL_SHIM_H
#define COMPANION_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#endif
