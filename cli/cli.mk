# cli/cli.mk — the devharness command, build/bin/devharness.
# Links the runtime library plus the objects cmdline/, machine/, conformance/, module/
# and bench/ append to CLI_OBJS (and their libraries to CLI_LDLIBS).
CLI_SRCS := cli/main.c cli/info.c cli/targets.c cli/run.c cli/run_dir.c cli/run_check.c cli/run_health.c cli/run_summary.c cli/run_record.c
# result bundles read, merged, verified and stored (cli/results.h; docs/results.md)
CLI_SRCS += cli/bundle_read.c cli/store.c cli/store_import.c cli/store_bench.c cli/store_cmd.c \
            cli/merge.c cli/verify.c
CLI_OBJS += $(call obj,$(CLI_SRCS))
CLI_LDLIBS += -lsqlite3

# The store's schema and migrations (cli/store_schema.sql) compiled in as one string.
CLI_STORE_SCHEMA := $(OBJDIR)/gen/cli/store_schema
$(CLI_STORE_SCHEMA).c: cli/store_schema.sql
	@mkdir -p $(@D)
	{ echo 'const char dh_store_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$$/\\n"/' $<; echo ';'; } > $@.tmp && mv $@.tmp $@
$(CLI_STORE_SCHEMA).o: $(CLI_STORE_SCHEMA).c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
CLI_OBJS += $(CLI_STORE_SCHEMA).o

$(DEVHARNESS): $(CLI_OBJS) $(BASE_LIB) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(CLI_OBJS) $(BASE_LIB) $(RUNTIME_LINK) -ljansson -lhwloc $(CLI_LDLIBS)
