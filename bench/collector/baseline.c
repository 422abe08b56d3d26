/*
 * baseline - what lrugend's libraries cost before lrugend does anything: a
 * program linked like lrugend (libcurl, libmicrohttpd, protobuf-c, jansson,
 * zlib) that initialises libcurl, serves HTTP on a loopback port from one
 * thread like lrugend's /metrics, and prints its memory as
 * "rss_kb=N anon_kb=N file_kb=N" (from /proc/self/status). bench/run prints
 * it next to lrugend's own figures, so that the RSS target can be read
 * against the floor set by shared libraries.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	(void)cls, (void)c, (void)url, (void)method, (void)version, (void)data, (void)size;
	(void)con_cls;
	return MHD_NO;
}

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	long rss = 0, anon = 0, file = 0;
	struct MHD_Daemon *d;
	char line[256];
	json_t *j;
	FILE *f;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	curl_easy_cleanup(curl_easy_init());
	j = json_object();
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024), MHD_OPTION_END);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &rss);
		sscanf(line, "RssAnon: %ld", &anon);
		sscanf(line, "RssFile: %ld", &file);
	}
	if (f)
		fclose(f);
	printf("rss_kb=%ld anon_kb=%ld file_kb=%ld zlib=%s protobuf_c=%s\n", rss, anon, file,
	       zlibVersion(), protobuf_c_version());
	if (d)
		MHD_stop_daemon(d);
	json_decref(j);
	curl_global_cleanup();
	return d ? 0 : 1;
}
