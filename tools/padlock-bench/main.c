// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: command line.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kcapi.h>

#include "bench.h"

struct options opt;

static void print_help(FILE *f)
{
	fputs("usage: padlock-bench [OPTIONS] afalg|dmcrypt|ipsec|all\n"
	      "\n"
	      "Compares the PadLock crypto drivers with the generic AES/SHA drivers (and any\n"
	      "other driver the kernel has) for the userland AF_ALG interface, for dm-crypt\n"
	      "and for IPsec (ESP).  Every driver is pinned by its driver name from\n"
	      "/proc/crypto; every result line names kernel, CPU, algorithm, driver and\n"
	      "priority.\n"
	      "\n"
	      "  afalg     AES ecb/cbc/ctr/xts and sha1/sha256 through libkcapi, sizes 16 B to\n"
	      "            64 KiB, encrypt and decrypt; outputs are compared with the baseline\n"
	      "            first (a mismatch stops the run)\n"
	      "  dmcrypt   plain dm-crypt mappings on a RAM disk (brd) pinned with capi: cipher\n"
	      "            specs, fio sequential and 4 KiB random I/O, data read back verified\n"
	      "            (root; needs cryptsetup, dmsetup, fio)\n"
	      "  ipsec     ESP between two network namespaces, cbc(aes)+hmac(sha256) and\n"
	      "            rfc3686(ctr(aes)), iperf3; the winning driver is switched through\n"
	      "            crypto_user priorities (root; needs ip, iperf3)\n"
	      "  all       all three\n"
	      "\n"
	      "options:\n"
	      "  --quick            short run (few repetitions, 1 s fio/iperf3 runs)\n"
	      "  --runs N           repetitions per AF_ALG measurement (default 5, quick 3)\n"
	      "  --time MS          minimum time of one repetition (default 200, quick 20)\n"
	      "  --driver NAME      measure only NAME (repeatable); the baseline is always\n"
	      "                     measured as the reference\n"
	      "  --path P           force the AF_ALG path: sendmsg, vmsplice, stream, aio\n"
	      "  --sizes LIST       AF_ALG request sizes, default 16,64,256,1024,8192,16384,65536\n"
	      "  --seconds S        duration of each fio/iperf3 run (default 10, quick 1)\n"
	      "  --ram-mib N        RAM disk size for dmcrypt (default 512, quick 96)\n"
	      "  --json FILE        write all results as JSON\n"
	      "  --csv FILE         write all results as CSV\n"
	      "  --plot FILE.png    AF_ALG throughput against size per driver (gnuplot)\n"
	      "  --model FILE       the CPU cost model for the projected rows under padlock-sim\n"
	      "                     (default: $PADLOCK_BENCH_MODEL, cpu-models.conf next to\n"
	      "                     the program, /usr/share/padlock-bench/cpu-models.conf)\n"
	      "  -v, --verbose      show the commands run\n"
	      "  -h, --help         this text;  --version  the version\n"
	      "\n"
	      "exit status: 0 done, 1 a measurement or check failed, 2 bad usage or missing\n"
	      "privilege/program/module/driver, 130 interrupted.  Whatever was set up (device\n"
	      "mappings, namespaces, priorities) is removed in every case.  See padlock-bench(1).\n",
	      f);
}

static void parse_sizes(const char *arg)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.nsizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v = strtol(tok, NULL, 0);

		if (v < 1 || v > 65536 || opt.nsizes == (int)ARRAY_SIZE(opt.sizes))
			die(EXIT_ENV, "--sizes takes up to 16 sizes of 1 to 65536 bytes, not %s.",
			    arg);
		opt.sizes[opt.nsizes++] = v;
	}
	if (!opt.nsizes)
		die(EXIT_ENV, "--sizes needs a list such as 16,1024,65536.");
}

/* the subcommands asked for */
static int do_afalg, do_dm, do_ipsec;

/* the numbers given on the command line; 0: the default */
static int arg_runs, arg_time_ms, arg_secs, arg_ram;

static void set_path(const char *arg)
{
	if (strcmp(arg, "sendmsg") && strcmp(arg, "vmsplice") &&
	    strcmp(arg, "stream") && strcmp(arg, "aio"))
		die(EXIT_ENV,
		    "--path must be sendmsg, vmsplice, stream or aio, not %s.",
		    arg);
	opt.path = arg;
}

static void add_driver(const char *arg)
{
	if (opt.ndrivers == (int)ARRAY_SIZE(opt.drivers))
		die(EXIT_ENV, "too many --driver options.");
	opt.drivers[opt.ndrivers++] = arg;
}

/* one option c; returns -1 to go on, else the exit status */
static int handle_option(int c, const char *arg)
{
	switch (c) {
	case 'q':
		opt.quick = 1;
		break;
	case 'r':
		arg_runs = atoi(arg);
		break;
	case 't':
		arg_time_ms = atoi(arg);
		break;
	case 's':
		arg_secs = atoi(arg);
		break;
	case 'm':
		arg_ram = atoi(arg);
		break;
	case 'j':
		opt.json_file = arg;
		break;
	case 'c':
		opt.csv_file = arg;
		break;
	case 'P':
		opt.plot_file = arg;
		break;
	case 'M':
		model_file = arg;
		break;
	case 'v':
		opt.verbose = 1;
		break;
	case 'p':
		set_path(arg);
		break;
	case 'S':
		parse_sizes(arg);
		break;
	case 'd':
		add_driver(arg);
		break;
	case 'h':
		print_help(stdout);
		return 0;
	case 'V':
		printf("padlock-bench %s\n", PB_VERSION);
		return 0;
	default:
		print_help(stderr);
		return EXIT_ENV;
	}
	return -1;
}

/* the options; returns -1 to go on, else the exit status */
static int parse_options(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "runs", required_argument, NULL, 'r' },
		{ "time", required_argument, NULL, 't' },
		{ "driver", required_argument, NULL, 'd' },
		{ "path", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "seconds", required_argument, NULL, 's' },
		{ "ram-mib", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'P' },
		{ "model", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		rc = handle_option(c, optarg);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1) {
		print_help(stderr);
		return EXIT_ENV;
	}
	return -1;
}

static void select_subcommand(const char *cmd)
{
	if (!strcmp(cmd, "afalg"))
		do_afalg = 1;
	else if (!strcmp(cmd, "dmcrypt"))
		do_dm = 1;
	else if (!strcmp(cmd, "ipsec"))
		do_ipsec = 1;
	else if (!strcmp(cmd, "all"))
		do_afalg = 1, do_dm = 1, do_ipsec = 1;
	else
		die(EXIT_ENV,
		    "unknown subcommand %s (afalg, dmcrypt, ipsec or all; see --help).",
		    cmd);
}

static void set_defaults(void)
{
	opt.runs = arg_runs > 0 ? arg_runs : opt.quick ? 3 : 5;
	opt.time_ms = arg_time_ms > 0 ? arg_time_ms : opt.quick ? 20 : 200;
	opt.fio_seconds = arg_secs > 0 ? arg_secs : opt.quick ? 1 : 10;
	opt.iperf_seconds = opt.fio_seconds;
	opt.ram_mib = arg_ram >= 32 ? arg_ram : opt.quick ? 96 : 512;
}

/* everything that can be missing is checked before anything runs */
static void check_requirements(void)
{
	if (do_dm || do_ipsec)
		need_root(do_dm && do_ipsec ? "padlock-bench all" :
			  do_dm ? "padlock-bench dmcrypt" : "padlock-bench ipsec");
	if (do_dm) {
		need_program("cryptsetup", "cryptsetup-bin");
		need_program("dmsetup", "dmsetup");
		need_program("fio", "fio");
	}
	if (do_ipsec) {
		need_program("ip", "iproute2");
		need_program("iperf3", "iperf3");
	}
	if (opt.plot_file && !have_program("gnuplot"))
		notice("%s",
		       "gnuplot is not installed, so --plot will draw nothing (install gnuplot-nox).");
	drivers_validate_option();
}

static void run_subcommands(void)
{
	if (do_afalg) {
		cmd_afalg();
		project_rows("afalg");
		report_tables("afalg",
			      "AF_ALG (legacy userland interface; deprecated from Linux 7.2), MB = 10^6 bytes; median of the repetitions");
		report_crossover("afalg");
		report_projection_note();
	}
	if (do_dm) {
		cmd_dmcrypt();
		project_rows("dmcrypt");
		report_tables("dmcrypt",
			      "dm-crypt on brd with fio, direct I/O; 4 KiB = random, 1 MiB = sequential; MB = 10^6 bytes");
		report_crossover("dmcrypt");
		report_projection_note();
	}
	if (do_ipsec) {
		cmd_ipsec();
		project_rows("ipsec");
		report_tables("ipsec",
			      "ESP transport mode over veth between two namespaces, iperf3; tcp = 128 KiB writes, udp = datagram size; Mbit/s = 10^6 bits per second of iperf3 payload");
		report_crossover("ipsec");
		report_projection_note();
	}
}

static void write_outputs(void)
{
	int rc;

	rc = opt.json_file ? report_write_json(opt.json_file) : 0;
	if (rc)
		die(EXIT_RUNTIME, "cannot write %s: %s", opt.json_file, strerror(-rc));
	rc = opt.csv_file ? report_write_csv(opt.csv_file) : 0;
	if (rc)
		die(EXIT_RUNTIME, "cannot write %s: %s", opt.csv_file, strerror(-rc));
	if (opt.plot_file)
		report_plot(opt.plot_file);
}

int main(int argc, char **argv)
{
	int rc = parse_options(argc, argv);

	if (rc >= 0)
		return rc;
	select_subcommand(argv[optind]);
	set_defaults();

	install_signals();
	kcapi_set_verbosity(KCAPI_LOG_NONE);
	sysinfo_read();
	project_init();
	check_requirements();

	printf("padlock-bench %s: kernel %s, CPU %s%s%s%s\n", PB_VERSION, sys_kernel, sys_cpu,
	       sys_profile[0] ? ", padlock-sim profile " : "", sys_profile,
	       opt.quick ? " (quick run)" : "");
	fflush(stdout);

	run_subcommands();
	cleanup_all();
	write_outputs();
	return 0;
}
