#include "cosim_log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace {

void vnote(const char *fmt, va_list ap) {
  fprintf(stderr, "memchan-cosim: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
}

}  // namespace

void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(fmt, ap);
  va_end(ap);
}

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(fmt, ap);
  va_end(ap);
  exit(2);
}
