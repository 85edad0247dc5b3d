/*
 * SHA-256 of each entry of a chunk of audit entries, compared with the stored hashes, in one call
 * (src/server/services/audit/native-digests.ts loads it; docs/performance.md, "Digests taken
 * without OpenSSL's per-call dispatch"). It hashes with the OpenSSL that Node.js itself carries,
 * through its direct SHA-256 functions: Node's crypto.hash goes through OpenSSL 3's EVP layer,
 * which costs about 180 ns a call on top of about 210 ns of hashing for an entry of 400 bytes.
 * No hashing code of our own: this file only splits, calls OpenSSL, writes hex and compares.
 */
#include <node_api.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

static const char HEX[] = "0123456789abcdef";

static int uint_arg(napi_env env, napi_value value, uint32_t *out) {
  return napi_get_value_uint32(env, value, out) == napi_ok;
}

/*
 * holds(bytes, c, cEnd, entries, h): whether bytes[c, cEnd) splits on newlines into exactly
 * `entries` pieces and the SHA-256 of piece k, in lowercase hex, is bytes[h + 65k, h + 65k + 64),
 * with a comma after each digest but the last. Throws when a range lies outside the bytes.
 */
static napi_value holds(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  void *data;
  size_t length;
  uint32_t c, c_end, entries, h;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5 ||
      napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok || !uint_arg(env, argv[1], &c) ||
      !uint_arg(env, argv[2], &c_end) || !uint_arg(env, argv[3], &entries) || !uint_arg(env, argv[4], &h)) {
    napi_throw_type_error(env, NULL, "holds(bytes, c, cEnd, entries, h): a Buffer and four integers");
    return NULL;
  }
  if (entries < 1 || c > c_end || c_end > length || h > length || (uint64_t)entries * 65 - 1 > length - h) {
    napi_throw_range_error(env, NULL, "holds: a range outside the bytes");
    return NULL;
  }
  const uint8_t *bytes = data;
  const uint8_t *from = bytes + c;
  const uint8_t *end = bytes + c_end;
  const uint8_t *stored = bytes + h;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  char hex[2 * SHA256_DIGEST_LENGTH];
  int ok = 1;
  for (uint32_t k = 0; ok && k < entries; k++) {
    const uint8_t *newline = memchr(from, '\n', (size_t)(end - from));
    /* Every piece but the last ends at a newline; the last ends at cEnd. */
    if ((newline == NULL) != (k == entries - 1)) {
      ok = 0;
      break;
    }
    const uint8_t *stop = newline ? newline : end;
    SHA256_CTX ctx;
    if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, from, (size_t)(stop - from)) || !SHA256_Final(digest, &ctx)) {
      napi_throw_error(env, NULL, "holds: SHA-256 failed");
      return NULL;
    }
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
      hex[2 * i] = HEX[digest[i] >> 4];
      hex[2 * i + 1] = HEX[digest[i] & 15];
    }
    const uint8_t *at = stored + 65 * (size_t)k;
    ok = memcmp(hex, at, sizeof hex) == 0 && (k == entries - 1 || at[64] == ',');
    from = stop + 1;
  }
  napi_value result;
  if (napi_get_boolean(env, ok, &result) != napi_ok) return NULL;
  return result;
}

/* Context-aware: loaded by each thread that verifies. */
NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "holds", NAPI_AUTO_LENGTH, holds, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "holds", fn) != napi_ok) return NULL;
  return exports;
}
