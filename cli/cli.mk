# cli/cli.mk — the devharness command, build/bin/devharness.
# Links the runtime library plus the objects the other rooms (cmdline/, store/, machine/,
# conformance/, module/, bench/) append to CLI_OBJS (and their libraries to CLI_LDLIBS).
CLI_SRCS := cli/main.c cli/info.c cli/info_collect.c cli/targets.c cli/run.c cli/run_dir.c cli/run_check.c cli/run_health.c cli/run_summary.c cli/run_record.c
CLI_OBJS += $(call obj,$(CLI_SRCS))

$(DEVHARNESS): $(CLI_OBJS) $(BASE_LIB) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(CLI_OBJS) $(BASE_LIB) $(RUNTIME_LINK) -ljansson -lhwloc $(CLI_LDLIBS)
