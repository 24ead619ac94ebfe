# tests/base/tests.mk — tests of base/ (libdh_base.a, linked statically: its symbols
# are hidden in libdevharness.so). base_text: the UTF-8 validator and the report-text
# cleaner (base/text.h). base_error: the error formatting rule, base/'s per-thread
# error record and its hand-over to the runtime's error (base/error.h).
$(eval $(call dh_test,base_text,tests/base/test_text.c,$(BASE_LIB) -lcmocka))
$(TESTDIR)/base_text: $(BASE_LIB)
$(eval $(call dh_test,base_error,tests/base/test_error.c,$(BASE_LIB) -ljansson -lcmocka))
$(TESTDIR)/base_error: $(BASE_LIB)
