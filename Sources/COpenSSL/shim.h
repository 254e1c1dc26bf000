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
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

/* Macros of the PKCS#12 import (CompanionCrypto's PKCS12), which Swift cannot call, as functions. */
static inline long ck_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline int ck_x509_stack_count(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *ck_x509_stack_at(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline void ck_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
#endif
