/* conformance/runner/waivers.c — waiver files (see waivers.h). Uses jansson. */
#include "waivers.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "base/json_read.h"
#include "base/text.h"

int dc_glob_valid(const char* glob, const char** why) {
  if (!glob || !*glob) {
    *why = "empty glob";
    return 0;
  }
  for (const char* p = glob; *p; p++) {
    if (*p == '\\') {
      if (!p[1]) {
        *why = "trailing backslash";
        return 0;
      }
      p++;
    } else if (*p == '[') {
      const char* q = p + 1;
      if (*q == '!' || *q == '^') q++;
      if (*q == ']') q++;
      while (*q && *q != ']') q++;
      if (!*q) {
        *why = "unclosed '['";
        return 0;
      }
      p = q;
    } else if ((unsigned char)*p < 0x20) {
      *why = "control character";
      return 0;
    }
  }
  return 1;
}

static char* w_strdup(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Writes s into out as a double-quoted string for one-line messages: control
 * characters, quotes and backslashes escaped, cut to 80 characters with "...". */
static const char* quote(char* out, size_t n, const char* s) {
  size_t o = 0;
  if (n < 8) return "";
  out[o++] = '"';
  for (size_t i = 0; s[i] != '\0' && o + 6 < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (i >= 80) {
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
    else if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
    else out[o++] = (char)c;
  }
  out[o++] = '"';
  out[o] = '\0';
  return out;
}

int dc_waivers_check_clauses(const dc_waivers_t* w, size_t first, const char* const* ids,
                             size_t n, char* err, size_t err_size) {
  for (size_t i = first; i < w->n; ++i) {
    size_t m = 0;
    for (size_t j = 0; j < n && m == 0; ++j)
      if (fnmatch(w->v[i].glob, ids[j], 0) == 0) ++m;
    if (m == 0) {
      char q[400];
      snprintf(err, err_size, "%s: clause glob %s matches no clause (see devharness conformance --list)",
               w->v[i].origin, quote(q, sizeof q, w->v[i].glob));
      return -1;
    }
  }
  return 0;
}

/* The top level: only the keys waivers, target, comment. 0, or -1 with err set. */
static int check_root_keys(json_t* root, const char* shown, char* err, size_t err_size) {
  char q[400];
  const char* key;
  json_t* val;
  json_object_foreach(root, key, val) {
    if (strcmp(key, "waivers") != 0 && strcmp(key, "comment") != 0 && strcmp(key, "target") != 0) {
      snprintf(err, err_size, "%s: unknown key %s (known: waivers, target, comment)", shown,
               quote(q, sizeof q, key));
      return -1;
    }
  }
  return 0;
}

/* Entry i: an object of clause (a valid glob), kind (skip, xfail) and a non-empty
 * reason, nothing else. Returns its kind, or -1 with err set. */
static int check_entry(json_t* e, size_t i, const char* shown, char* err, size_t err_size) {
  char q[400];
  if (!json_is_object(e)) {
    snprintf(err, err_size, "%s: waivers[%zu]: expected an object {clause, kind, reason}", shown, i);
    return -1;
  }
  const char* key;
  json_t* val;
  json_object_foreach(e, key, val) {
    if (strcmp(key, "clause") && strcmp(key, "kind") && strcmp(key, "reason")) {
      snprintf(err, err_size, "%s: waivers[%zu]: unknown key %s (known: clause, kind, reason)", shown, i,
               quote(q, sizeof q, key));
      return -1;
    }
  }
  const char* clause = json_string_value(json_object_get(e, "clause"));
  const char* kind = json_string_value(json_object_get(e, "kind"));
  const char* reason = json_string_value(json_object_get(e, "reason"));
  const char* why = NULL;
  if (!clause)
    snprintf(err, err_size, "%s: waivers[%zu]: missing or non-string \"clause\"", shown, i);
  else if (!dc_glob_valid(clause, &why))
    snprintf(err, err_size, "%s: waivers[%zu]: bad clause glob %s: %s", shown, i, quote(q, sizeof q, clause), why);
  else if (!kind)
    snprintf(err, err_size, "%s: waivers[%zu]: missing or non-string \"kind\" (skip or xfail)", shown, i);
  else if (strcmp(kind, "skip") != 0 && strcmp(kind, "xfail") != 0)
    snprintf(err, err_size, "%s: waivers[%zu]: unknown kind %s (expected skip or xfail)", shown, i,
             quote(q, sizeof q, kind));
  else if (!reason || !*reason)
    snprintf(err, err_size, "%s: waivers[%zu]: missing or empty \"reason\" (every waiver needs one)", shown, i);
  else
    return strcmp(kind, "skip") == 0 ? DC_WAIVE_SKIP : DC_WAIVE_XFAIL;
  return -1;
}

/* Appends checked entry i to *w. 0, or -1 with err set. */
static int add_entry(dc_waivers_t* w, json_t* e, size_t i, int kind, const char* shown, char* err,
                     size_t err_size) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 16;
    dc_waiver_t* nv = realloc(w->v, cap * sizeof *nv);
    if (!nv) {
      snprintf(err, err_size, "%s: out of memory", shown);
      return -1;
    }
    w->v = nv;
    w->cap = cap;
  }
  char origin[DH_TEXT_BUF + 64];
  snprintf(origin, sizeof origin, "%s: waivers[%zu]", shown, i);
  dc_waiver_t* d = &w->v[w->n++];
  d->glob = w_strdup(json_string_value(json_object_get(e, "clause")));
  d->kind = kind;
  d->reason = w_strdup(json_string_value(json_object_get(e, "reason")));
  d->origin = w_strdup(origin);
  return 0;
}

int dc_waivers_load(dc_waivers_t* w, const char* path, char* err, size_t err_size) {
  char shown[DH_TEXT_BUF]; /* the file name as messages show it: escaped, capped */
  dh_text_quote(path, shown, sizeof shown);
  /* the one bounded reader (base/json_read.h): regular files only, 1 MiB, UTF-8, no
   * duplicate keys, an object; its message names the file and line:column */
  json_t* root = NULL;
  if (dh_json_read_file(path, &root) != 0) {
    snprintf(err, err_size, "%s", dh_base_error_message());
    return -1;
  }
  int rc = check_root_keys(root, shown, err, err_size);
  json_t* arr = json_object_get(root, "waivers");
  if (rc == 0 && !json_is_array(arr)) {
    snprintf(err, err_size, "%s: \"waivers\" must be an array of {clause, kind, reason}", shown);
    rc = -1;
  }
  size_t i;
  json_t* e;
  json_array_foreach(arr, i, e) {
    if (rc != 0) break;
    int kind = check_entry(e, i, shown, err, err_size);
    rc = kind < 0 ? -1 : add_entry(w, e, i, kind, shown, err, err_size);
  }
  json_decref(root);
  return rc;
}

const dc_waiver_t* dc_waivers_match(const dc_waivers_t* w, const char* id) {
  for (size_t i = 0; i < w->n; i++)
    if (fnmatch(w->v[i].glob, id, 0) == 0) return &w->v[i];
  return NULL;
}

void dc_waivers_free(dc_waivers_t* w) {
  for (size_t i = 0; i < w->n; i++) {
    free(w->v[i].glob);
    free(w->v[i].reason);
    free(w->v[i].origin);
  }
  free(w->v);
  w->v = NULL;
  w->n = w->cap = 0;
}
