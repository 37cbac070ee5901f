// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench ipsec: ESP (transport mode) between two network namespaces
 * joined by veth, SAs set with `ip xfrm`, throughput and CPU use from
 * `iperf3 --json`.
 *
 * xfrm takes algorithm names, never driver names, and the kernel picks the
 * driver with the highest priority.  So for each run the tool makes the
 * wanted driver win: through crypto_user (NETLINK_CRYPTO,
 * CRYPTO_MSG_UPDATEALG with CRYPTOCFGA_PRIORITY_VAL) when the kernel has it,
 * otherwise by unloading the PadLock modules for the non-PadLock runs.
 * Updating a driver's priority also drops the template instances built on it
 * (authenc, hmac, rfc3686), so the next SA builds its transform afresh.
 * The original priorities are restored afterwards, also on error or signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/netlink.h>
#include <linux/cryptouser.h>

#include "bench.h"

static char ns_a[32], ns_b[32], veth_a[16], veth_b[16];
static const char *ip_a = "10.213.0.1", *ip_b = "10.213.0.2";
static pid_t server_pid;

/* ------------------------------------------------------------------ */
/* crypto_user */

static int cu_fd = -1;

static int cu_open(void)
{
	cu_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO);
	if (cu_fd < 0 && !module_loaded("crypto_user")) {
		run_cmd(NULL, "modprobe crypto_user");
		cu_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO);
	}
	return cu_fd < 0 ? -errno : 0;
}

static int cu_set_priority(const char *driver, int prio)
{
	struct {
		struct nlmsghdr n;
		struct crypto_user_alg cru;
		struct nlattr a;
		u32 prio;
	} req;	/* all members 4-byte aligned: no padding (asserted below) */
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[1024];
	ssize_t r;

	static_assert(sizeof(req) == NLMSG_HDRLEN + sizeof(struct crypto_user_alg) +
		       NLA_HDRLEN + sizeof(u32), "netlink request has padding");
	if (strlen(driver) >= sizeof(req.cru.cru_driver_name))
		return -ENAMETOOLONG;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = sizeof(req);
	req.n.nlmsg_type = CRYPTO_MSG_UPDATEALG;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = (u32)time(NULL);
	snprintf(req.cru.cru_driver_name, sizeof(req.cru.cru_driver_name), "%s", driver);
	req.a.nla_len = NLA_HDRLEN + sizeof(u32);
	req.a.nla_type = CRYPTOCFGA_PRIORITY_VAL;
	req.prio = prio;
	if (sendto(cu_fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	do {
		r = recv(cu_fd, buf, sizeof(buf), 0);
	} while (r < 0 && errno == EINTR);
	if (r < (ssize_t)sizeof(struct nlmsghdr))
		return -EIO;
	if (((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA((struct nlmsghdr *)buf);

		return e->error;
	}
	return 0;
}

struct saved_prio {
	char driver[128];
	int prio;
};

static struct saved_prio saved[96];
static int nsaved;

static void save_prio(const char *driver, int prio)
{
	int i;

	for (i = 0; i < nsaved; i++)
		if (!strcmp(saved[i].driver, driver))
			return;
	if (nsaved == (int)ARRAY_SIZE(saved))
		die(EXIT_RUNTIME, "internal error: too many priorities to remember");
	snprintf(saved[nsaved].driver, sizeof(saved[0].driver), "%s", driver);
	saved[nsaved].prio = prio;
	nsaved++;
}

static void restore_prios(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < nsaved; i++) {
		int rc = cu_set_priority(saved[i].driver, saved[i].prio);

		if (rc && rc != -ENOENT)
			fprintf(stderr,
				"padlock-bench: warning: could not restore the priority %d of %s: %s\n",
				saved[i].prio, saved[i].driver, strerror(-rc));
	}
}

/*
 * Make want the highest-priority driver of cra; touch every other driver of
 * cra so that no template instance built on it survives.  want == NULL:
 * only touch.
 */
static void make_winner(const char *cra, const char *want)
{
	struct crypto_list l = { 0 };
	int i, max = 0, rc;

	crypto_read(&l);
	for (i = 0; i < l.n; i++) {
		const struct calg *c = &l.a[i];

		if (strcmp(c->name, cra) || c->internal || c->driver[0] == '_')
			continue;
		save_prio(c->driver, c->priority);
		if ((!want || strcmp(c->driver, want)) && c->priority > max)
			max = c->priority;
	}
	for (i = 0; i < l.n; i++) {
		const struct calg *c = &l.a[i];
		int prio = c->priority;

		if (strcmp(c->name, cra) || c->internal || c->driver[0] == '_')
			continue;
		if (want && !strcmp(c->driver, want))
			prio = max + 1;
		rc = cu_set_priority(c->driver, prio);
		if (rc && rc != -ENOENT)
			die(EXIT_RUNTIME, "crypto_user could not set the priority of %s: %s.",
			    c->driver, strerror(-rc));
	}
	crypto_free(&l);
}

/* ------------------------------------------------------------------ */
/* fallback without crypto_user: unload the PadLock modules */

static char unloaded[8][64];
static int nunloaded;

static void reload_modules(void *arg)
{
	int i;
	const char *ko = getenv("PADLOCK_KO_DIR");

	(void)arg;
	for (i = nunloaded - 1; i >= 0; i--) {
		char m[64];
		size_t k;

		if (module_loaded(unloaded[i]))
			continue;
		if (!run_cmd(NULL, "modprobe %s", unloaded[i]))
			continue;
		snprintf(m, sizeof(m), "%s", unloaded[i]);
		for (k = 0; m[k]; k++)
			if (m[k] == '_')
				m[k] = '-';
		if (ko && !run_cmd(NULL, "insmod '%s/%s.ko'", ko, m))
			continue;
		fprintf(stderr, "padlock-bench: warning: could not load %s again.\n", unloaded[i]);
	}
	nunloaded = 0;
}

static void unload_padlock_modules(void)
{
	struct crypto_list l = { 0 };
	int i, j;

	crypto_read(&l);
	for (i = 0; i < l.n; i++) {
		const char *m = l.a[i].module;

		if (!is_padlock_driver(l.a[i].driver) || !strcmp(m, "kernel") || !m[0])
			continue;
		for (j = 0; j < nunloaded; j++)
			if (!strcmp(unloaded[j], m))
				break;
		if (j < nunloaded || nunloaded == 8)
			continue;
		snprintf(unloaded[nunloaded++], sizeof(unloaded[0]), "%s", m);
	}
	crypto_free(&l);
	for (i = 0; i < nunloaded; i++)
		if (run_cmd(NULL, "rmmod %s", unloaded[i]))
			die(EXIT_RUNTIME,
			    "without crypto_user the PadLock driver can only be switched off by unloading %s, and rmmod failed: %s",
			    unloaded[i], run_stderr());
}

/* ------------------------------------------------------------------ */
/* namespaces, SAs, iperf3 */

static void del_netns(void *arg)
{
	(void)arg;
	run_cmd(NULL, "ip netns del %s", ns_a);
	run_cmd(NULL, "ip netns del %s", ns_b);
}

static void stop_server(void *arg)
{
	(void)arg;
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		waitpid(server_pid, NULL, 0);
		server_pid = 0;
	}
}

static void sh(const char *what, const char *fmt, ...) __printf(2, 3);
static void sh(const char *what, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (run_cmd(NULL, "%s", cmd)) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s", run_stderr());
		check_stop();
		die(EXIT_RUNTIME, "%s failed (%s): %s", what, cmd, msg[0] ? msg : "error");
	}
	check_stop();
}

static void setup_netns(void)
{
	int p = (int)getpid();

	snprintf(ns_a, sizeof(ns_a), "plbench-a-%d", p);
	snprintf(ns_b, sizeof(ns_b), "plbench-b-%d", p);
	snprintf(veth_a, sizeof(veth_a), "plba%d", p % 10000000);
	snprintf(veth_b, sizeof(veth_b), "plbb%d", p % 10000000);
	cleanup_push("network namespaces", del_netns, NULL);
	sh("creating a network namespace", "ip netns add %s", ns_a);
	sh("creating a network namespace", "ip netns add %s", ns_b);
	sh("creating the veth pair", "ip link add %s netns %s type veth peer name %s netns %s",
	   veth_a, ns_a, veth_b, ns_b);
	sh("configuring veth",
	   "ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up && ip -n %s link set lo up",
	   ns_a, ip_a, veth_a, ns_a, veth_a, ns_a);
	sh("configuring veth",
	   "ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up && ip -n %s link set lo up",
	   ns_b, ip_b, veth_b, ns_b, veth_b, ns_b);
}

static void hexkey(char *out, int n)
{
	u8 k[64];
	int i;

	fill_random(k, n);
	out[0] = '0';
	out[1] = 'x';
	for (i = 0; i < n; i++)
		sprintf(out + 2 + 2 * i, "%02x", k[i]);
	memset(k, 0, sizeof(k));
}

static void flush_sas(void *arg)
{
	(void)arg;
	run_cmd(NULL,
		"ip -n %s xfrm state flush; ip -n %s xfrm policy flush; ip -n %s xfrm state flush; ip -n %s xfrm policy flush",
		ns_a, ns_a, ns_b, ns_b);
}

/* SAs and policies of one namespace in one `ip -batch` (keys stay off argv) */
static void add_sas_ns(const char *ns, const char *src, const char *dst, const char *enc,
		       const char *k1, const char *k2, const char *a1, const char *a2)
{
	char file[] = "/tmp/padlock-bench-xfrm.XXXXXX";
	int fd = mkstemp(file);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	const char *sa = "xfrm state add src %s dst %s proto esp spi 0x%x reqid 7 mode transport";
	const char *pol =
		"xfrm policy add src %s dst %s dir %s tmpl proto esp reqid 7 mode transport\n";
	int rc;

	if (!f)
		die(EXIT_RUNTIME, "cannot create a temporary file: %s", strerror(errno));
	fprintf(f, sa, ip_a, ip_b, 0x7100);
	fprintf(f, " enc '%s' %s auth-trunc 'hmac(sha256)' %s 128\n", enc, k1, a1);
	fprintf(f, sa, ip_b, ip_a, 0x7101);
	fprintf(f, " enc '%s' %s auth-trunc 'hmac(sha256)' %s 128\n", enc, k2, a2);
	fprintf(f, pol, src, dst, "out");
	fprintf(f, pol, dst, src, "in");
	fclose(f);
	rc = run_cmd(NULL, "ip -n %s -batch %s", ns, file);
	unlink(file);
	if (rc) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s", run_stderr());
		check_stop();
		die(EXIT_RUNTIME,
		    "ip xfrm could not add the ESP SAs with %s in %s: %s",
		    enc, ns, msg);
	}
}

static void add_sas(const char *enc, int enckeylen)
{
	char k1[160], k2[160], a1[80], a2[80];

	hexkey(k1, enckeylen);
	hexkey(k2, enckeylen);
	hexkey(a1, 32);
	hexkey(a2, 32);
	cleanup_push("xfrm states", flush_sas, NULL);
	add_sas_ns(ns_a, ip_a, ip_b, enc, k1, k2, a1, a2);
	add_sas_ns(ns_b, ip_b, ip_a, enc, k1, k2, a1, a2);
	memset(k1, 0, sizeof(k1));
	memset(k2, 0, sizeof(k2));
	memset(a1, 0, sizeof(a1));
	memset(a2, 0, sizeof(a2));
}

/*
 * Bytes and packets ESP processed in namespace b, both SAs: every packet
 * between the namespaces once (proves the traffic was encrypted)
 */
struct esp_count {
	unsigned long long bytes, packets;
};

static void esp_count(struct esp_count *c)
{
	char *out = NULL, *p;

	c->bytes = 0;
	c->packets = 0;
	if (run_cmd(&out, "ip -n %s -s xfrm state", ns_b) == 0) {
		for (p = out; (p = strstr(p, "lifetime current:")); ) {
			p += strlen("lifetime current:");
			c->bytes += strtoull(p, &p, 10);
			if (!strncmp(p, "(bytes), ", 9))
				c->packets += strtoull(p + 9, &p, 10);
		}
	}
	free(out);
}

static void start_server(void)
{
	pid_t pid;

	cleanup_push("iperf3 server", stop_server, NULL);
	pid = fork();
	if (pid < 0)
		die(EXIT_RUNTIME, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execlp("ip", "ip", "netns", "exec", ns_a, "iperf3", "-s", "-B", ip_a, (char *)NULL);
		_exit(127);
	}
	server_pid = pid;
}

/* the ESP transform the kernel built: the highest-priority instance */
static void esp_transform(const char *cra, char *out, size_t n)
{
	struct crypto_list l = { 0 };
	int i, best = -1;

	snprintf(out, n, "?");
	crypto_read(&l);
	for (i = 0; i < l.n; i++)
		if (!strcmp(l.a[i].name, cra) && (best < 0 || l.a[i].priority > l.a[best].priority))
			best = i;
	if (best >= 0)
		snprintf(out, n, "%s", l.a[best].driver);
	crypto_free(&l);
}

/* what an iperf3 run measures: the SA's algorithm and the driver behind it */
struct esp_run {
	const char *alg, *pinned, *driver, *module;
	int prio, padlock, baseline;
	const char *esp;	/* the ESP transform the kernel built */
};

/*
 * iperf3 --json until it succeeds (the server may be slow to listen); the
 * ESP counters and the machine are read into c and s just before the
 * attempt that succeeded.  one_block: a single write instead of the timed
 * run.
 */
static struct json_object *iperf_json(const struct esp_run *e, int udp, long size,
				      int one_block, struct esp_count *c, struct sim_snap *s)
{
	char *argv[20], t[16], l[16], *out = NULL;
	int argc = 0, tries, rc = 1;
	struct json_object *js = NULL;
	char msg[300];

	snprintf(t, sizeof(t), "%d", opt.iperf_seconds);
	snprintf(l, sizeof(l), "%ld", size);
	argv[argc++] = "ip";
	argv[argc++] = "netns";
	argv[argc++] = "exec";
	argv[argc++] = ns_b;
	argv[argc++] = "iperf3";
	argv[argc++] = "-c";
	argv[argc++] = (char *)ip_a;
	argv[argc++] = one_block ? "-k" : "-t";
	argv[argc++] = one_block ? "1" : t;
	argv[argc++] = "--json";
	if (udp) {
		argv[argc++] = "-u";
		argv[argc++] = "-b";
		argv[argc++] = "0";
		argv[argc++] = "-l";
		argv[argc++] = l;
	}
	argv[argc] = NULL;
	for (tries = 0; tries < 20; tries++) {
		free(out);
		out = NULL;
		json_object_put(js);
		esp_count(c);
		sim_snap_read(s, 1);
		rc = run_argv(&out, argv);
		check_stop();
		js = json_output_parse(out);
		if (!rc && js && !json_at(js, "/error"))
			break;
		/* the server may not listen yet, or be busy with the last test */
		usleep(300000);
	}
	free(out);
	if (rc || !js || json_at(js, "/error")) {
		snprintf(msg, sizeof(msg), "%s",
			 json_at_str(js, "/error") ? json_at_str(js, "/error") : run_stderr());
		json_object_put(js);
		die(EXIT_RUNTIME, "iperf3 over ESP (%s, %s) failed: %s", e->alg, e->pinned, msg);
	}
	return js;
}

/* the payload iperf3 delivered: the bytes of the projected throughput */
static double iperf_payload(struct json_object *js, int udp)
{
	double bytes = json_at_num(js, "/end/sum_received/bytes", -1);

	if (bytes < 0 && udp)
		bytes = json_at_num(js, "/end/sum/bytes", 0) *
			(1 - json_at_num(js, "/end/sum/lost_percent", 0) / 100);
	return bytes < 0 ? 0 : bytes;
}

/*
 * When the rows are projected: the same run for a single write, whose
 * window is taken off the timed run's (iperf3's start, its control
 * connection and its exit drop out)
 */
static void iperf_short(const struct esp_run *e, int udp, long size, struct sim_window *w,
			const struct esp_count *c0, const struct esp_count *c1, double bytes)
{
	struct esp_count c2, c3;
	struct json_object *js;

	if (!proj.system)
		return;
	js = iperf_json(e, udp, size, 1, &c2, &w->w[2]);
	sim_snap_read(&w->w[3], 0);
	esp_count(&c3);
	w->ops = (double)(c1->packets - c0->packets) - (double)(c3.packets - c2.packets);
	w->bytes = bytes - iperf_payload(js, udp);
	json_object_put(js);
}

static void iperf(const struct esp_run *e, int udp, long size)
{
	struct esp_count c0, c1;
	struct sim_window w;
	struct json_object *js;
	struct row *r;
	double bps, lost = 0, pkts = 0;

	memset(&w, 0, sizeof(w));
	js = iperf_json(e, udp, size, 0, &c0, &w.w[0]);
	sim_snap_read(&w.w[1], 0);
	esp_count(&c1);
	if (c1.bytes <= c0.bytes) {
		json_object_put(js);
		die(EXIT_RUNTIME,
		    "no traffic went through the ESP SA (%s): the xfrm policy did not apply.",
		    e->alg);
	}
	bps = json_at_num(js, "/end/sum_received/bits_per_second", udp ? -1 : 0);
	if (udp) {
		lost = json_at_num(js, "/end/sum/lost_percent", 0);
		if (bps < 0)
			bps = json_at_num(js, "/end/sum/bits_per_second", 0) * (1 - lost / 100);
		pkts = json_at_num(js, "/end/sum/packets", 0) * (1 - lost / 100);
	}
	r = row_add();
	snprintf(r->test, sizeof(r->test), "ipsec");
	snprintf(r->alg, sizeof(r->alg), "%s", e->alg);
	r->keybits = 128;
	snprintf(r->op, sizeof(r->op), "%s", udp ? "udp" : "tcp");
	snprintf(r->driver, sizeof(r->driver), "%s", e->driver);
	snprintf(r->pinned, sizeof(r->pinned), "%s", e->pinned);
	snprintf(r->module, sizeof(r->module), "%s", e->module);
	r->priority = e->prio;
	r->padlock = e->padlock;
	r->baseline = e->baseline;
	r->size = size;
	snprintf(r->path, sizeof(r->path), "esp");
	r->runs = 1;
	r->mbps = bps / 8 / 1e6;
	r->mbps_min = r->mbps;
	r->mbps_max = r->mbps;
	r->ops = opt.iperf_seconds > 0 ?
		 pkts / json_at_num(js, "/end/sum/seconds", opt.iperf_seconds) : 0;
	r->cpu_pct = json_at_num(js, "/end/cpu_utilization_percent/host_total", 0) +
		     json_at_num(js, "/end/cpu_utilization_percent/remote_total", 0);
	snprintf(r->extra, sizeof(r->extra),
		 "\"esp_transform\": \"%.80s\", \"esp_bytes\": %llu, \"lost_percent\": %.4g",
		 e->esp, c1.bytes - c0.bytes, lost);
	iperf_short(e, udp, size, &w, &c0, &c1, iperf_payload(js, udp));
	sim_window_row(r, &w);
	json_object_put(js);
}

/* tcp, then udp at each datagram size */
static void iperf_all(const struct esp_run *e, const char *shown)
{
	static const long udp_quick[] = { 1400 }, udp_full[] = { 64, 512, 1400 };
	const long *udp = opt.quick ? udp_quick : udp_full;
	int nudp = opt.quick ? 1 : 3, j;

	for (j = -1; j < nudp; j++) {
		progress("[ipsec] %s %s %s", e->alg, shown, j < 0 ? "tcp" : "udp");
		iperf(e, j >= 0, j < 0 ? 131072 : udp[j]);
	}
}

struct sa_kind {
	const char *name;	/* row algorithm */
	const char *enc;	/* xfrm algorithm */
	int keylen;		/* bytes, with the rfc3686 nonce */
	const char *cra;	/* skcipher whose driver is switched */
	const char *aead;	/* the transform ESP builds */
};

static const struct sa_kind kinds[] = {
	{ "esp cbc(aes)+hmac(sha256)", "cbc(aes)", 16, "cbc(aes)",
	  "authenc(hmac(sha256),cbc(aes))" },
	{ "esp rfc3686(ctr(aes))+hmac(sha256)", "rfc3686(ctr(aes))", 20, "ctr(aes)",
	  "authenc(hmac(sha256),rfc3686(ctr(aes)))" },
};

/* a template name such as cbc(aes-generic) must exist to be raised */
static void instantiate(const char *name, int hash)
{
	struct crypto_list l = { 0 };

	crypto_read(&l);
	if (!crypto_find_driver(&l, name))
		afalg_instantiate(name, hash);
	crypto_free(&l);
}

/*
 * The hmac(sha256) driver that goes with sha256 driver wsha: PadLock's own
 * HMAC (hmac-sha256-padlock) with PadLock's hash, else the kernel's
 * library HMAC where it has one (hmac-sha256-lib, 6.17 on), else the hmac
 * template over wsha.  NULL when nothing was paired: the SAs take what
 * wins.  buf holds a template instance's name.
 */
static const char *pair_hmac(const char *wsha, char *buf, size_t n)
{
	struct crypto_list l = { 0 };
	const char *want = NULL;

	if (!wsha)
		return NULL;
	crypto_read(&l);
	if (is_padlock_driver(wsha) && crypto_find_driver(&l, "hmac-sha256-padlock"))
		want = "hmac-sha256-padlock";
	else if (!is_padlock_driver(wsha) && crypto_find_driver(&l, "hmac-sha256-lib"))
		want = "hmac-sha256-lib";
	crypto_free(&l);
	if (want)
		return want;
	snprintf(buf, n, "hmac(%s)", wsha);
	instantiate(buf, 1);
	return buf;
}

/* the non-internal cra driver of the highest priority, in l */
static const struct calg *best_driver(const struct crypto_list *l, const char *cra)
{
	int i, best = -1;

	for (i = 0; i < l->n; i++) {
		const struct calg *x = &l->a[i];

		if (!strcmp(x->name, cra) && !x->internal &&
		    (best < 0 || x->priority > l->a[best].priority))
			best = i;
	}
	return best >= 0 ? &l->a[best] : NULL;
}

/*
 * Without crypto_user: kinds[k] with the drivers as loaded (with = 1), then
 * without the PadLock modules (with = 0); the kernel picks the driver.
 */
static void measure_as_loaded(int k, int with)
{
	char esp[200], cipher[160];
	struct crypto_list l = { 0 };
	const struct calg *c;
	struct esp_run e = { .alg = kinds[k].name, .esp = esp };

	if (!with) {
		cleanup_push("padlock modules", reload_modules, NULL);
		unload_padlock_modules();
	}
	add_sas(kinds[k].enc, kinds[k].keylen);
	esp_transform(kinds[k].aead, esp, sizeof(esp));
	crypto_read(&l);
	c = best_driver(&l, kinds[k].cra);
	snprintf(cipher, sizeof(cipher), "%s", c ? c->driver : "?");
	e.pinned = cipher;
	e.driver = cipher;
	e.prio = c ? c->priority : -1;
	e.module = c ? c->module : "";
	e.padlock = is_padlock_driver(cipher);
	e.baseline = !with;
	iperf_all(&e, cipher);
	crypto_free(&l);
	cleanup_pop_run("xfrm states");
	if (!with)
		cleanup_pop_run("padlock modules");
}

/* the sha256 driver to pair with driver d of s: PadLock with PadLock */
static const char *pair_sha(const struct drvset *sha, int nsha, const struct drvset *s, int d)
{
	const char *wsha = NULL;
	int i;

	if (nsha <= 0)
		return NULL;
	if (d == 0)
		wsha = sha->drv[0];
	for (i = 1; i < sha->ndrv && !wsha; i++)
		if (sha->padlock[i] == s->padlock[d] && s->padlock[d])
			wsha = sha->drv[i];
	return wsha;
}

/* with crypto_user: kinds[k] with driver d of s made the winner */
static void measure_pinned(int k, const struct drvset *s, int d, const char *wsha)
{
	const char *want = s->drv[d], *whmac;
	char esp[200], drv[160], mod[64], hmac[176];
	struct crypto_list l = { 0 };
	const struct calg *c;
	struct esp_run e = {
		.alg = kinds[k].name, .pinned = want, .driver = drv, .module = mod,
		.padlock = s->padlock[d], .baseline = d == 0, .esp = esp,
	};

	check_stop();
	instantiate(want, 0);
	c = crypto_resolve(want, &l);
	snprintf(drv, sizeof(drv), "%s", c ? c->driver : want);
	snprintf(mod, sizeof(mod), "%s", c ? c->module : "");
	e.prio = c ? c->priority : -1;
	crypto_free(&l);
	make_winner(kinds[k].cra, drv);
	make_winner("sha256", wsha);
	whmac = pair_hmac(wsha, hmac, sizeof(hmac));
	if (whmac)
		make_winner("hmac(sha256)", whmac);
	add_sas(kinds[k].enc, kinds[k].keylen);
	esp_transform(kinds[k].aead, esp, sizeof(esp));
	if (!strstr(esp, drv) || (whmac && !strstr(esp, whmac)))
		die(EXIT_RUNTIME,
		    "could not make %s%s%s win for ESP: the kernel built %s.",
		    drv, whmac ? " and " : "", whmac ? whmac : "", esp);
	iperf_all(&e, drv);
	cleanup_pop_run("xfrm states");
	restore_prios(NULL);
}

/* kinds[k] with every driver; returns whether a PadLock driver was among them */
static int measure_kind(int k, int have_cu, const struct drvset *sha, int nsha,
			int any_padlock)
{
	struct drvset s;
	int n = drivers_for(kinds[k].cra, &s, 0), d, with;

	if (n <= 0) {
		if (n < 0)
			notice("the kernel has no %s; %s skipped.",
			       kinds[k].cra, kinds[k].name);
		return any_padlock;
	}
	drivers_quick_trim(&s);
	for (d = 0; d < s.ndrv; d++)
		any_padlock |= s.padlock[d];
	if (!have_cu) {
		/* two runs: as loaded, and without the PadLock modules */
		for (with = 1; with >= 0; with--) {
			if (!with && !any_padlock)
				break;
			measure_as_loaded(k, with);
		}
		return any_padlock;
	}
	for (d = 0; d < s.ndrv; d++)
		measure_pinned(k, &s, d, pair_sha(sha, nsha, &s, d));
	return any_padlock;
}

int cmd_ipsec(void)
{
	struct drvset sha;
	int have_cu, k, nsha, any_padlock = 0;

	need_module("veth", NULL);
	need_module("xfrm_user", NULL);
	need_module("esp4", NULL);
	need_module("authenc", NULL);
	have_cu = cu_open() == 0;
	if (!have_cu)
		notice("%s",
		       "crypto_user (NETLINK_CRYPTO) is not available: switching drivers by unloading the PadLock modules instead.");
	else
		cleanup_push("crypto priorities", restore_prios, NULL);

	nsha = drivers_for("sha256", &sha, 1);
	setup_netns();
	start_server();

	for (k = 0; k < 2; k++)
		any_padlock = measure_kind(k, have_cu, &sha, nsha, any_padlock);
	if (!any_padlock)
		notice("%s",
		       "no PadLock driver for cbc(aes)/ctr(aes) is present; ipsec compares the drivers that exist.");
	progress_done();
	cleanup_pop_run("iperf3 server");
	cleanup_pop_run("network namespaces");
	if (have_cu)
		cleanup_pop_run("crypto priorities");
	return 0;
}
