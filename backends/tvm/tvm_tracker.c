/*
 * backends/tvm/tvm_tracker.c — the client side of TVM's RPC tracker protocol: asks the
 * tracker at host:port for a server of a key, as TVM's TrackerSession.request does
 * (apache/tvm 0.27 python/tvm/rpc/client.py:384-437, the protocol in
 * python/tvm/rpc/tracker.py:19-41 and base.py sendjson/recvjson): connect, exchange
 * RPC_TRACKER_MAGIC (0x2F271, little-endian int32), send [REQUEST (4), key, "", 1] as
 * JSON with an int32 length, read [SUCCESS (0), [url, port, matchkey]]. The caller then
 * opens the session with TVM's rpc.Connect(url, port, matchkey), which the server accepts
 * as "client:<matchkey>" (server.py _listen_loop). TVM ships this client only in Python;
 * the C side of TVM's runtime has rpc.Connect but no tracker client. Calls nothing of
 * this folder (the bottom room, with tvm_device.c; tests/layering/call_graph.t).
 */
#include <errno.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backends/tvm/tvm_internal.h"

#define TRACKER_MAGIC 0x2F271
#define TRACKER_REQUEST 4
#define TRACKER_SUCCESS 0
#define TRACKER_REPLY_MAX 4096

/* Milliseconds left before deadline (CLOCK_MONOTONIC), at least 0. */
static int ms_left(const struct timespec* deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long ms = (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
  return ms > 0 ? (int)ms : 0;
}

/* All of n bytes, in or out, before the deadline; -1 with errno (ETIMEDOUT, EPIPE...). */
static int xfer(int fd, void* buf, size_t n, int out, const struct timespec* deadline) {
  char* p = buf;
  while (n > 0) {
    struct pollfd pf = {fd, (short)(out ? POLLOUT : POLLIN), 0};
    int r = poll(&pf, 1, ms_left(deadline));
    if (r == 0) errno = ETIMEDOUT;
    if (r <= 0) return -1;
    ssize_t k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
    if (k == 0) errno = ECONNRESET;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static int connect_to(const char* host, int port, char* err, size_t esize) {
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  int g = getaddrinfo(host, ps, &hints, &ai);
  if (g != 0) {
    snprintf(err, esize, "cannot resolve %s: %s", host, gai_strerror(g));
    return -1;
  }
  int fd = -1, saved = 0;
  for (struct addrinfo* a = ai; a != NULL && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      saved = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0) snprintf(err, esize, "cannot connect: %s", strerror(saved ? saved : errno));
  return fd;
}

/* The JSON reply [0, [url, port, matchkey]] into the out fields; -1 with err. */
static int parse_reply(const char* text, size_t n, dh_tvm_tracker_reply_t* out, char* err, size_t esize) {
  json_error_t je;
  json_t* v = json_loadb(text, n, 0, &je);
  json_t* code = json_array_get(v, 0);
  json_t* val = json_array_get(v, 1);
  const char* url = json_string_value(json_array_get(val, 0));
  json_t* port = json_array_get(val, 1);
  const char* key = json_string_value(json_array_get(val, 2));
  int rc = -1;
  if (v == NULL)
    snprintf(err, esize, "the tracker's reply is not JSON (%s)", je.text);
  else if (!json_is_integer(code) || json_integer_value(code) != TRACKER_SUCCESS)
    snprintf(err, esize, "the tracker refused the request (code %lld)",
             json_is_integer(code) ? (long long)json_integer_value(code) : -99LL);
  else if (url == NULL || key == NULL || !json_is_integer(port) || json_integer_value(port) < 1 ||
           json_integer_value(port) > 65535 || strlen(url) >= sizeof out->host || strlen(key) >= sizeof out->matchkey)
    snprintf(err, esize, "the tracker's reply is not [0, [url, port, matchkey]]");
  else {
    snprintf(out->host, sizeof out->host, "%s", url);
    out->port = (int)json_integer_value(port);
    snprintf(out->matchkey, sizeof out->matchkey, "%s", key);
    rc = 0;
  }
  json_decref(v);
  return rc;
}

int dh_tvm_tracker_request(const char* host, int port, const char* key, int timeout_s, dh_tvm_tracker_reply_t* out,
                           char* err, size_t esize) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += timeout_s;
  int fd = connect_to(host, port, err, esize);
  if (fd < 0) return -1;
  int32_t magic = TRACKER_MAGIC, back = 0; /* little-endian on every host devharness builds for */
  char req[512], reply[TRACKER_REPLY_MAX + 1];
  json_t* msg = json_pack("[issi]", TRACKER_REQUEST, key, "", 1);
  char* body = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
  json_decref(msg);
  int32_t len = body ? (int32_t)snprintf(req, sizeof req, "%s", body) : -1, rlen = 0;
  free(body);
  int rc = -1;
  if (len < 0 || (size_t)len >= sizeof req)
    snprintf(err, esize, "the key is too long for a tracker request");
  else if (xfer(fd, &magic, 4, 1, &deadline) != 0 || xfer(fd, &back, 4, 0, &deadline) != 0)
    snprintf(err, esize, "no tracker handshake: %s", strerror(errno));
  else if (back != TRACKER_MAGIC)
    snprintf(err, esize, "not a TVM RPC tracker (it answered 0x%x)", (unsigned)back);
  else if (xfer(fd, &len, 4, 1, &deadline) != 0 || xfer(fd, req, (size_t)len, 1, &deadline) != 0 ||
           xfer(fd, &rlen, 4, 0, &deadline) != 0)
    snprintf(err, esize, "no server of key '%s' within %d s: %s", key, timeout_s, strerror(errno));
  else if (rlen <= 0 || rlen > TRACKER_REPLY_MAX)
    snprintf(err, esize, "the tracker's reply has length %d", (int)rlen);
  else if (xfer(fd, reply, (size_t)rlen, 0, &deadline) != 0)
    snprintf(err, esize, "the tracker's reply stopped short: %s", strerror(errno));
  else
    rc = parse_reply(reply, (size_t)rlen, out, err, esize);
  close(fd);
  return rc;
}
