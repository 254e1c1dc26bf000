/*
 * P11's floor: the same three cases as ws_peer.py over libcurl's connect-only stream (CURLOPT_CONNECT_ONLY,
 * curl_easy_send / curl_easy_recv), with RFC 6455 framing written here: the opening handshake (its
 * Sec-WebSocket-Accept checked with OpenSSL's SHA-1), masked client frames, unmasked server frames, fragments
 * joined, pings answered. No JSON library: (a) checks each echo byte for byte, (b) reads each message's seq.
 *
 *   ws_floor <ws-or-http-base-url> [cases] [round-trips] [pushed] [big]     (defaults: abc 10000 100000 16777216)
 *
 * Prints one JSON line {"a": s, "a_cpu": s, ...}: wall and process CPU seconds per case, each on a connection
 * opened (and warmed with one exchange) before its clock starts. Built by scripts/bench with
 * `cc -O2 ws_floor.c -lcurl -lcrypto`. Exit 1 with a sentence on any failure.
 */
#define _GNU_SOURCE /* strcasestr */
#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ws {
    CURL *easy;
    curl_socket_t socket;
    unsigned char *in;     /* bytes received and not yet consumed: in[start, end) */
    size_t start, end, capacity;
    unsigned char *out;    /* one outgoing frame */
    size_t out_capacity;
    unsigned char *message; /* a fragmented message being assembled */
    size_t message_length, message_capacity;
    const unsigned char *data; /* the last message received: in `in` (one frame) or in `message` (fragments) */
    size_t data_length;
    uint64_t mask_state;
};

static void fail(const char *what) {
    fprintf(stderr, "ws_floor: %s\n", what);
    exit(1);
}

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void wait_for(struct ws *ws, short events) {
    struct pollfd p = {.fd = ws->socket, .events = events};
    if (poll(&p, 1, 30000) <= 0) fail("the connection stalled for 30 s");
}

static void send_all(struct ws *ws, const unsigned char *bytes, size_t length) {
    while (length > 0) {
        size_t sent = 0;
        CURLcode code = curl_easy_send(ws->easy, bytes, length, &sent);
        if (code == CURLE_AGAIN) {
            wait_for(ws, POLLOUT);
            continue;
        }
        if (code != CURLE_OK) fail(curl_easy_strerror(code));
        bytes += sent;
        length -= sent;
    }
}

/* Makes room for and reads more bytes into ws->in (at least one). */
static void fill(struct ws *ws) {
    if (ws->start > 0 && ws->start == ws->end) ws->start = ws->end = 0;
    if (ws->end == ws->capacity) {
        if (ws->start > 0) {
            memmove(ws->in, ws->in + ws->start, ws->end - ws->start);
            ws->end -= ws->start;
            ws->start = 0;
        } else {
            ws->capacity *= 2;
            ws->in = realloc(ws->in, ws->capacity);
            if (!ws->in) fail("out of memory");
        }
    }
    for (;;) {
        size_t got = 0;
        CURLcode code = curl_easy_recv(ws->easy, ws->in + ws->end, ws->capacity - ws->end, &got);
        if (code == CURLE_AGAIN) {
            wait_for(ws, POLLIN);
            continue;
        }
        if (code != CURLE_OK) fail(curl_easy_strerror(code));
        if (got == 0) fail("the server closed the connection");
        ws->end += got;
        return;
    }
}

static void need(struct ws *ws, size_t count) {
    while (ws->end - ws->start < count) {
        if (ws->capacity - ws->start < count) {
            /* a frame larger than the buffer: grow it */
            memmove(ws->in, ws->in + ws->start, ws->end - ws->start);
            ws->end -= ws->start;
            ws->start = 0;
            while (ws->capacity < count) ws->capacity *= 2;
            ws->in = realloc(ws->in, ws->capacity);
            if (!ws->in) fail("out of memory");
        }
        fill(ws);
    }
}

static uint32_t next_mask(struct ws *ws) {
    /* xorshift64*: a fresh masking key per frame (RFC 6455 5.3 wants it unpredictable; a floor needs it cheap) */
    ws->mask_state ^= ws->mask_state >> 12;
    ws->mask_state ^= ws->mask_state << 25;
    ws->mask_state ^= ws->mask_state >> 27;
    return (uint32_t)((ws->mask_state * 2685821657736338717ULL) >> 32);
}

static void send_frame(struct ws *ws, int opcode, const unsigned char *payload, size_t length) {
    size_t header = length < 126 ? 6 : length < 65536 ? 8 : 14;
    if (ws->out_capacity < header + length) {
        ws->out_capacity = header + length;
        ws->out = realloc(ws->out, ws->out_capacity);
        if (!ws->out) fail("out of memory");
    }
    unsigned char *f = ws->out;
    f[0] = (unsigned char)(0x80 | opcode);
    if (length < 126) {
        f[1] = (unsigned char)(0x80 | length);
    } else if (length < 65536) {
        f[1] = 0x80 | 126;
        f[2] = (unsigned char)(length >> 8);
        f[3] = (unsigned char)length;
    } else {
        f[1] = 0x80 | 127;
        for (int i = 0; i < 8; i++) f[2 + i] = (unsigned char)(length >> (56 - 8 * i));
    }
    uint32_t key = next_mask(ws);
    unsigned char *k = f + header - 4;
    memcpy(k, &key, 4);
    unsigned char *p = f + header;
    uint64_t wide = (uint64_t)key | ((uint64_t)key << 32);
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, payload + i, 8);
        word ^= wide;
        memcpy(p + i, &word, 8);
    }
    for (; i < length; i++) p[i] = payload[i] ^ k[i & 3];
    send_all(ws, f, header + length);
}

/* Reads one whole message (fragments joined; pings answered, pongs skipped) into ws->data; returns its opcode. */
static int receive_message(struct ws *ws) {
    int opcode = 0;
    ws->message_length = 0;
    for (;;) {
        need(ws, 2);
        unsigned char *h = ws->in + ws->start;
        int fin = h[0] & 0x80, frame_opcode = h[0] & 0x0F;
        if (h[1] & 0x80) fail("the server masked a frame");
        uint64_t length = h[1] & 0x7F;
        size_t header = 2;
        if (length == 126) {
            need(ws, 4);
            h = ws->in + ws->start;
            length = ((uint64_t)h[2] << 8) | h[3];
            header = 4;
        } else if (length == 127) {
            need(ws, 10);
            h = ws->in + ws->start;
            length = 0;
            for (int i = 0; i < 8; i++) length = (length << 8) | h[2 + i];
            header = 10;
        }
        need(ws, header + length);
        unsigned char *payload = ws->in + ws->start + header;
        ws->start += header + length;
        if (frame_opcode == 0x8) fail("the server closed the connection");
        if (frame_opcode == 0x9) {
            send_frame(ws, 0xA, payload, length);
            continue;
        }
        if (frame_opcode == 0xA) continue;
        if (frame_opcode != 0) opcode = frame_opcode;
        if (fin && ws->message_length == 0) {
            /* a message in one frame (the usual case) is read where it lies, without a copy; it stays valid
               until the next receive */
            ws->data = payload;
            ws->data_length = length;
            return opcode;
        }
        if (ws->message_capacity < ws->message_length + length) {
            ws->message_capacity = (ws->message_length + length) * 2;
            ws->message = realloc(ws->message, ws->message_capacity);
            if (!ws->message) fail("out of memory");
        }
        memcpy(ws->message + ws->message_length, payload, length);
        ws->message_length += length;
        if (fin) {
            ws->data = ws->message;
            ws->data_length = ws->message_length;
            return opcode;
        }
    }
}

static void ws_open(struct ws *ws, const char *base, const char *path) {
    char url[1024];
    snprintf(url, sizeof url, "%s%s", base, path);
    memset(ws, 0, sizeof *ws);
    ws->mask_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)time(NULL);
    ws->capacity = 1 << 18;
    ws->in = malloc(ws->capacity);
    ws->easy = curl_easy_init();
    if (!ws->in || !ws->easy) fail("out of memory");
    curl_easy_setopt(ws->easy, CURLOPT_URL, url);
    curl_easy_setopt(ws->easy, CURLOPT_CONNECT_ONLY, 1L);
    CURLcode code = curl_easy_perform(ws->easy);
    if (code != CURLE_OK) fail(curl_easy_strerror(code));
    curl_easy_getinfo(ws->easy, CURLINFO_ACTIVESOCKET, &ws->socket);

    const char *host = strstr(base, "://");
    host = host ? host + 3 : base;
    unsigned char nonce[16];
    for (int i = 0; i < 16; i++) nonce[i] = (unsigned char)next_mask(ws);
    char key[32];
    EVP_EncodeBlock((unsigned char *)key, nonce, 16);
    char request[2048];
    int length = snprintf(request, sizeof request,
                          "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                          path, host, key);
    send_all(ws, (unsigned char *)request, (size_t)length);

    char *end = NULL;
    while (!end) {
        fill(ws);
        ws->in[ws->end < ws->capacity ? ws->end : ws->capacity - 1] = 0;
        end = strstr((char *)ws->in, "\r\n\r\n");
    }
    *end = 0;
    if (strncmp((char *)ws->in, "HTTP/1.1 101", 12) != 0) fail("the server refused the upgrade");
    char accepted[128];
    snprintf(accepted, sizeof accepted, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1((unsigned char *)accepted, strlen(accepted), digest);
    char expected[64];
    EVP_EncodeBlock((unsigned char *)expected, digest, SHA_DIGEST_LENGTH);
    if (!strcasestr((char *)ws->in, "Sec-WebSocket-Accept:") || !strstr((char *)ws->in, expected))
        fail("the server's Sec-WebSocket-Accept is wrong");
    ws->start = (size_t)(end + 4 - (char *)ws->in);
}

static void ws_close(struct ws *ws) {
    unsigned char code[2] = {0x03, 0xE8}; /* 1000 */
    send_frame(ws, 0x8, code, 2);
    curl_easy_cleanup(ws->easy);
    free(ws->in);
    free(ws->out);
    free(ws->message);
}

static size_t echo_message(char *buffer, long id) {
    int head = snprintf(buffer, 128, "{\"id\":%ld,\"type\":\"echo\",\"pad\":\"", id);
    memset(buffer + head, 'x', (size_t)(100 - head - 2));
    memcpy(buffer + 98, "\"}", 2);
    return 100;
}

static void round_trips(const char *base, long count, double *wall, double *cpu) {
    double cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    struct ws ws;
    ws_open(&ws, base, "/echo");
    char message[128];
    send_frame(&ws, 0x1, (unsigned char *)message, echo_message(message, 0));
    receive_message(&ws);
    double start = now(CLOCK_MONOTONIC);
    for (long i = 1; i <= count; i++) {
        size_t length = echo_message(message, i);
        send_frame(&ws, 0x1, (unsigned char *)message, length);
        if (receive_message(&ws) != 0x1 || ws.data_length != length || memcmp(ws.data, message, length) != 0)
            fail("a round trip's reply is not its message");
    }
    *wall = now(CLOCK_MONOTONIC) - start;
    ws_close(&ws);
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
}

static void pushed(const char *base, long count, double *wall, double *cpu) {
    double cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    struct ws ws;
    ws_open(&ws, base, "/push");
    const char *warm = "{\"count\": 1, \"size\": 200}";
    send_frame(&ws, 0x1, (const unsigned char *)warm, strlen(warm));
    receive_message(&ws);
    char ask[64];
    int length = snprintf(ask, sizeof ask, "{\"count\": %ld, \"size\": 200}", count);
    double start = now(CLOCK_MONOTONIC);
    send_frame(&ws, 0x1, (unsigned char *)ask, (size_t)length);
    for (long i = 0; i < count; i++) {
        if (receive_message(&ws) != 0x1 || ws.data_length != 200) fail("a pushed message is not 200 bytes of text");
        if (memcmp(ws.data, "{\"seq\":", 7) != 0 || strtol((const char *)ws.data + 7, NULL, 10) != i)
            fail("a pushed message came out of order");
    }
    *wall = now(CLOCK_MONOTONIC) - start;
    ws_close(&ws);
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
}

static void big(const char *base, size_t size, double *wall, double *cpu) {
    unsigned char *payload = malloc(size);
    if (!payload) fail("out of memory");
    uint64_t state = 0x2545F4914F6CDD1DULL;
    for (size_t i = 0; i < size; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        payload[i] = (unsigned char)(state >> 56);
    }
    double cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    struct ws ws;
    ws_open(&ws, base, "/echo");
    send_frame(&ws, 0x2, (const unsigned char *)"warm", 4);
    receive_message(&ws);
    double start = now(CLOCK_MONOTONIC);
    send_frame(&ws, 0x2, payload, size);
    int opcode = receive_message(&ws);
    *wall = now(CLOCK_MONOTONIC) - start;
    if (opcode != 0x2 || ws.data_length != size || memcmp(ws.data, payload, size) != 0)
        fail("the big message came back different");
    ws_close(&ws);
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    free(payload);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ws_floor <ws-base-url> [cases] [round-trips] [pushed] [big]\n");
        return 2;
    }
    char base[1024];
    /* libcurl 7.88 knows no ws:// here: the same host and port as http:// (the stream is ours after connect) */
    if (strncmp(argv[1], "ws://", 5) == 0)
        snprintf(base, sizeof base, "http://%s", argv[1] + 5);
    else
        snprintf(base, sizeof base, "%s", argv[1]);
    size_t length = strlen(base);
    if (length > 0 && base[length - 1] == '/') base[length - 1] = 0;
    const char *cases = argc > 2 ? argv[2] : "abc";
    long trips = argc > 3 ? atol(argv[3]) : 10000;
    long count = argc > 4 ? atol(argv[4]) : 100000;
    size_t size = argc > 5 ? (size_t)atol(argv[5]) : (size_t)16 << 20;
    curl_global_init(CURL_GLOBAL_ALL);
    double wall, cpu;
    const char *separator = "";
    printf("{");
    if (strchr(cases, 'a')) {
        round_trips(base, trips, &wall, &cpu);
        printf("%s\"a\": %.6f, \"a_cpu\": %.6f", separator, wall, cpu);
        separator = ", ";
    }
    if (strchr(cases, 'b')) {
        pushed(base, count, &wall, &cpu);
        printf("%s\"b\": %.6f, \"b_cpu\": %.6f", separator, wall, cpu);
        separator = ", ";
    }
    if (strchr(cases, 'c')) {
        big(base, size, &wall, &cpu);
        printf("%s\"c\": %.6f, \"c_cpu\": %.6f", separator, wall, cpu);
    }
    printf("}\n");
    curl_global_cleanup();
    return 0;
}
