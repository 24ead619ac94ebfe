# store/store.mk — the results room (store/README.md): result bundles written and read,
# the SQLite results store, merge and verify; linked into the devharness command. The
# bench driver (bench/bench.mk) links the bundle's write side alone ($(OBJDIR)/store/bundle.o
# with STORE_BUNDLE_LDLIBS: fragments are read in alphabetical order, bench/ before
# store/, so a prerequisite there names the object, not a variable of this file).
STORE_SRCS := $(sort $(wildcard store/*.c))
CLI_OBJS += $(call obj,$(STORE_SRCS))

# store/bundle.c writes result bundles (docs/results.md): SHA-256 from nettle (Debian
# nettle-dev), UUIDs from libuuid (uuid-dev); the checkout's commit at build time goes
# into every manifest.
DH_GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
$(OBJDIR)/store/bundle.o: CPPFLAGS += -DDH_GIT_COMMIT='"$(DH_GIT_COMMIT)"'
STORE_BUNDLE_LDLIBS := -lnettle -luuid -ljansson
CLI_LDLIBS += $(STORE_BUNDLE_LDLIBS) -lsqlite3

# The store's schema and migrations (store/schema.sql) compiled in as one string.
STORE_SCHEMA_C := $(OBJDIR)/gen/store/schema
$(STORE_SCHEMA_C).c: store/schema.sql
	@mkdir -p $(@D)
	{ echo 'const char dh_store_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$$/\\n"/' $<; echo ';'; } > $@.tmp && mv $@.tmp $@
$(STORE_SCHEMA_C).o: $(STORE_SCHEMA_C).c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
CLI_OBJS += $(STORE_SCHEMA_C).o

# The read side in Python (store/py/): history, dashboard, export and the store reader
# compare.py uses too, staged with the tools (Makefile SHARE_FILES).
SHARE_FILES += store/py/dh_store.py store/py/history.py store/py/dashboard.py store/py/dashboard.html.j2 \
    store/py/export.py

# What every reader must agree on with store/schema.sql, taken from it once by
# store/schema_facts.awk: the newest schema version (and the status values) as a C
# header for store/*.c and a Python module for store/py/ (staged with the tools).
STORE_FACTS_H  := $(OBJDIR)/gen/store/schema_facts.h
STORE_FACTS_PY := $(SHARE_DIR)/dh_store_schema.py
$(STORE_FACTS_H): store/schema.sql store/schema_facts.awk
	@mkdir -p $(@D)
	awk -v lang=c -f store/schema_facts.awk store/schema.sql > $@.tmp && mv $@.tmp $@
$(STORE_FACTS_PY): store/schema.sql store/schema_facts.awk
	@mkdir -p $(@D)
	awk -v lang=py -f store/schema_facts.awk store/schema.sql > $@.tmp && mv $@.tmp $@
SHARE_GEN += $(STORE_FACTS_PY)
$(call obj,$(STORE_SRCS)): CPPFLAGS += -I$(OBJDIR)/gen
$(call obj,$(STORE_SRCS)): | $(STORE_FACTS_H)
