/*
 * tests/base/test_text.c — base/text.c's UTF-8 validator (dh_utf8_seq_len) and the
 * cleaner every report string goes through (dh_text_clean): the byte sequences a
 * driver can hand over (surrogates, overlong forms, U+FFFE, controls) come out as
 * visible escapes, valid text comes out unchanged, a cut never splits a character.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/text.h"

static void test_seq_len(void** state) {
  (void)state;
  assert_int_equal(dh_utf8_seq_len("a"), 1);
  assert_int_equal(dh_utf8_seq_len("\xc3\xa9"), 2);         /* é */
  assert_int_equal(dh_utf8_seq_len("\xe2\x82\xac"), 3);     /* € */
  assert_int_equal(dh_utf8_seq_len("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
  assert_int_equal(dh_utf8_seq_len("\xed\x9f\xbf"), 3);     /* U+D7FF, last before the surrogates */
  assert_int_equal(dh_utf8_seq_len("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
  assert_int_equal(dh_utf8_seq_len("\xed\xa0\x80"), 0);     /* surrogate U+D800 */
  assert_int_equal(dh_utf8_seq_len("\xed\xbf\xbf"), 0);     /* surrogate U+DFFF */
  assert_int_equal(dh_utf8_seq_len("\xc0\x80"), 0);         /* overlong NUL */
  assert_int_equal(dh_utf8_seq_len("\xc1\xbf"), 0);         /* overlong U+007F */
  assert_int_equal(dh_utf8_seq_len("\xe0\x80\x80"), 0);     /* overlong, 3 bytes */
  assert_int_equal(dh_utf8_seq_len("\xf0\x80\x80\x80"), 0); /* overlong, 4 bytes */
  assert_int_equal(dh_utf8_seq_len("\xf4\x90\x80\x80"), 0); /* above U+10FFFF */
  assert_int_equal(dh_utf8_seq_len("\xf5\x80\x80\x80"), 0);
  assert_int_equal(dh_utf8_seq_len("\x80"), 0);             /* stray continuation */
  assert_int_equal(dh_utf8_seq_len("\xe2\x82"), 0);         /* cut short by the NUL */
  assert_int_equal(dh_utf8_seq_len("\xef\xbf\xbe"), 3);     /* U+FFFE is well-formed UTF-8 */
}

/* Cleans s in a buffer of size bytes; checks the result and whether it changed. */
static void check_clean(const char* s, size_t size, const char* want, int want_changed) {
  char buf[256];
  assert_true(size <= sizeof buf);
  snprintf(buf, sizeof buf, "%s", s);
  int changed = dh_text_clean(buf, size);
  assert_string_equal(buf, want);
  assert_int_equal(changed, want_changed);
}

static void test_clean(void** state) {
  (void)state;
  check_clean("plain sim:0, caf\xc3\xa9 \xe2\x82\xac", 256, "plain sim:0, caf\xc3\xa9 \xe2\x82\xac", 0);
  check_clean("tab\tand\nnewline", 256, "tab\tand\nnewline", 0);
  check_clean("sur\xed\xa0\x80rogate", 256, "sur\\xed\\xa0\\x80rogate", 1);
  check_clean("over\xc0\x80long", 256, "over\\xc0\\x80long", 1);
  check_clean("non\xef\xbf\xbe" "char\xef\xbf\xbf", 256, "non\\uFFFEchar\\uFFFF", 1);
  check_clean("bell\x07 esc\x1b del\x7f cr\r", 256, "bell\\x07 esc\\x1b del\\x7f cr\\r", 1);
  check_clean("cut \xe2\x82", 256, "cut \\xe2\\x82", 1);
  /* cut to the buffer: never inside an escape or a character */
  check_clean("ab\xed\xa0\x80", 7, "ab\\xed", 1);
  check_clean("ab\xc3\xa9\xc3\xa9", 6, "ab\xc3\xa9", 1);
  check_clean("", 4, "", 0);
}

/* dh_text_quote goes through the same validator: a surrogate is not kept. */
/* Terminal-safe: C1 controls and bidi formatting characters are escaped (base/text.h);
 * other non-ASCII characters are kept; dh_sbuf_add_quoted does the same without a cut. */
static void test_quote_terminal(void** state) {
  (void)state;
  char buf[DH_TEXT_BUF];
  assert_string_equal(dh_text_quote("a\xc2\x9b" "2J\xe2\x80\xae" "b\xe2\x81\xa6" "c\xd8\x9c", buf, sizeof buf),
                      "a\\u009B2J\\u202Eb\\u2066c\\u061C");
  assert_string_equal(dh_text_quote("\x1b]0;t\x07\xe2\x80\x8f", buf, sizeof buf), "\\x1b]0;t\\x07\\u200F");
  /* neighbours of the escaped ranges are kept: U+00A0, U+2029, U+202F, U+206A */
  assert_string_equal(dh_text_quote("\xc2\xa0\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xaa", buf, sizeof buf),
                      "\xc2\xa0\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xaa");
  char long_text[400];
  memset(long_text, 'x', sizeof long_text - 2);
  long_text[sizeof long_text - 2] = '\x1b';
  long_text[sizeof long_text - 1] = '\0';
  dh_sbuf_t b = {0};
  dh_sbuf_add_quoted(&b, long_text);
  assert_int_equal(b.len, sizeof long_text - 2 + 4);
  assert_string_equal(b.s + b.len - 5, "x\\x1b");
  free(b.s);
}

static void test_quote_same_validator(void** state) {
  (void)state;
  char buf[DH_TEXT_BUF];
  assert_string_equal(dh_text_quote("a\xed\xa0\x80z", buf, sizeof buf), "a\\xed\\xa0\\x80z");
  assert_string_equal(dh_text_quote("caf\xc3\xa9", buf, sizeof buf), "caf\xc3\xa9");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seq_len),
      cmocka_unit_test(test_clean),
      cmocka_unit_test(test_quote_same_validator),
      cmocka_unit_test(test_quote_terminal),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
