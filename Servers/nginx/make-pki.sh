#!/usr/bin/env bash
# Makes the nginx test server's private PKI with openssl, in a folder of the caller's choosing (0700):
#
#   Servers/nginx/make-pki.sh <pki-dir>
#
#   root.pem / root.der          the private root CA (the CA a client imports for the server)
#   intermediate.pem             signed by the root; signs the server and client leaves
#   server-chain.pem, server.key the TLS leaf for 127.0.0.1 and localhost, sent with the intermediate
#   client.p12                   a client identity signed by the intermediate, with the chain (OpenSSL 3's
#                                default PKCS#12: AES-256-CBC, PBKDF2, SHA-256 MAC)
#   client-legacy.p12            the same identity in the old format (RC2-40, SHA-1 MAC: `-legacy`)
#   client-leaf.p12              the same leaf without the intermediate (a server that knows only the root
#                                cannot verify it)
#   stranger.p12                 a client signed by a CA nobody trusts
#   p12-passphrase               the passphrase of every .p12 above (random)
#   selfsigned.pem/.key          a self-signed server certificate (its own key)
#   rotating-a.pem, rotating-b.pem   two self-signed certificates with different keys, each with its key in
#                                rotating-<a|b>.d/; the link `rotating` names the pair served
#                                (Servers/nginx/rotate-key.sh points it at the other one)
#   htpasswd, basic-user, basic-password   the Basic user at the proxy (apr1 hash; random password)
#   sso-cookie                   the cookie value the forward-auth check lets through (random)
#
# Nothing here is committed: the folder is made fresh by every start (Servers/lib.sh's nginx kind).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <pki-dir>" >&2; exit 2; }
umask 077
mkdir -p "$1"
cd "$1"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# One openssl config with an explicit section per certificate kind, so no default extensions are mixed in.
cat > openssl.cnf <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[selfsigned]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
CNF

selfsign() { # name subject extension-section
    key "$1.key"
    openssl req -new -x509 -config openssl.cnf -key "$1.key" -subj "$2" -days 30 -extensions "$3" -out "$1.pem"
}
sign() { # name subject extension-section issuer
    key "$1.key"
    openssl req -new -config openssl.cnf -key "$1.key" -subj "$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA "$4.pem" -CAkey "$4.key" -CAcreateserial -days 30 \
        -extfile openssl.cnf -extensions "$3" -out "$1.pem" 2>/dev/null
    rm -f "$1.csr"
}

selfsign root "/O=CompanionKit tests/CN=CompanionKit Test Root CA" root
openssl x509 -in root.pem -outform DER -out root.der
sign intermediate "/O=CompanionKit tests/CN=CompanionKit Test Intermediate CA" intermediate root
sign server "/O=CompanionKit tests/CN=127.0.0.1" server intermediate
cat server.pem intermediate.pem > server-chain.pem
sign client "/O=CompanionKit tests/CN=companion-test-client" client intermediate
selfsign stranger-ca "/CN=Nobody's CA" root
sign stranger "/CN=stranger" client stranger-ca

openssl rand -base64 18 | tr -d '\n' > p12-passphrase
export P12_PASSPHRASE
P12_PASSPHRASE=$(cat p12-passphrase)
p12() { # out key cert [extra args...]
    local out=$1 k=$2 c=$3
    shift 3
    openssl pkcs12 -export -name "companion-test-client" -inkey "$k" -in "$c" -passout env:P12_PASSPHRASE \
        -out "$out" "$@"
}
p12 client.p12 client.key client.pem -certfile intermediate.pem
p12 client-legacy.p12 client.key client.pem -certfile intermediate.pem -legacy
p12 client-leaf.p12 client.key client.pem
p12 stranger.p12 stranger.key stranger.pem

selfsign selfsigned "/CN=CompanionKit self-signed test server" selfsigned
selfsign rotating-a "/CN=CompanionKit rotating test server (a)" selfsigned
selfsign rotating-b "/CN=CompanionKit rotating test server (b)" selfsigned
# The rotating server reads rotating/server.pem and .key at every handshake; `rotating` is a link to one pair.
for side in a b; do
    mkdir -p "rotating-$side.d"
    cp "rotating-$side.pem" "rotating-$side.d/server.pem"
    mv "rotating-$side.key" "rotating-$side.d/server.key"
done
ln -s rotating-a.d rotating

echo -n proxy-user > basic-user
openssl rand -base64 18 | tr -d '\n' > basic-password
printf '%s:%s\n' "$(cat basic-user)" "$(openssl passwd -apr1 -stdin < basic-password)" > htpasswd
openssl rand -hex 16 | tr -d '\n' > sso-cookie
rm -f ./*.srl
