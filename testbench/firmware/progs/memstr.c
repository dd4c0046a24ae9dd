/* libc memory and string functions at every alignment and many lengths (their word-at-
 * a-time paths and byte tails), formatted output to buffers, number parsing, qsort,
 * and the heap (malloc / realloc / free through sbrk). */
#include <stdlib.h>

#include "progs_common.h"

/* Truncation is what these calls test. */
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#pragma GCC diagnostic ignored "-Wformat-truncation"

static uint8_t src[300] __attribute__((aligned(8)));
static uint8_t dst[300] __attribute__((aligned(8)));

static uint32_t digest(const uint8_t *p, unsigned n) {
  uint32_t h = 0;
  for (unsigned i = 0; i < n; ++i) h = h * 131u + p[i];
  return h;
}

static int cmp_int(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int main(void) {
  for (unsigned i = 0; i < sizeof src; ++i) src[i] = (uint8_t)(i * 13 + 1);

  uint32_t acc = 0;
  for (unsigned so = 0; so < 4; ++so)
    for (unsigned dof = 0; dof < 4; ++dof)
      for (unsigned len = 0; len < 70; len += 3) {
        memset(dst, 0xee, sizeof dst);
        memcpy(dst + dof, src + so, len);
        acc = acc * 7u + digest(dst, 80);
        memset(dst + dof, (int)(len & 0xff), len);
        acc ^= digest(dst, 80);
      }
  printf("memcpy/memset all alignments: %08lx\n", (unsigned long)acc);

  memcpy(dst, src, 100);
  memmove(dst + 3, dst, 60);
  memmove(dst + 50, dst + 53, 40);
  printf("memmove %08lx\n", (unsigned long)digest(dst, 100));
  printf("memcmp %d %d %d\n", memcmp(src, src, 50) == 0, memcmp(src, dst, 50) < 0,
         memcmp("abcd", "abce", 4) < 0);
  const uint8_t *hit = memchr(src, src[77], sizeof src);
  printf("memchr offset %d\n", (int)(hit - src));

  static const char *const words[] = {"", "a", "hello", "ipusim tile", "0123456789abcdefghij",
                                      "a somewhat longer string that crosses words"};
  for (unsigned w = 0; w < COUNT_OF(words); ++w) {
    char buf[64];
    for (unsigned off = 0; off < 4; ++off) {
      strcpy(buf + off, words[w]);
      acc = acc * 3u + (uint32_t)strlen(buf + off);
    }
    printf("\"%s\": len %u cmp %d chr %d rchr %d\n", words[w], (unsigned)strlen(words[w]),
           strcmp(words[w], "hello") > 0 ? 1 : (strcmp(words[w], "hello") < 0 ? -1 : 0),
           strchr(words[w], 'l') ? (int)(strchr(words[w], 'l') - words[w]) : -1,
           strrchr(words[w], 'e') ? (int)(strrchr(words[w], 'e') - words[w]) : -1);
  }
  char text[] = "alpha,beta,,gamma;delta";
  unsigned tokens = 0;
  for (char *t = strtok(text, ",;"); t; t = strtok(NULL, ",;")) {
    printf("token %u: %s\n", tokens++, t);
  }
  printf("strstr %d strncmp %d strncpy \"%.5s\"\n",
         (int)(strstr("find the needle here", "needle") - "find the needle here"),
         strncmp("abcdef", "abcxyz", 3), strncpy((char[8]){0}, "truncated", 5));

  char line[96];
  int n = snprintf(line, sizeof line, "%d|%5u|%-6s|%08x|%c|%.3s", -17, 42u, "ab", 0xabcdu, 'Z',
                   "xyzzy");
  printf("snprintf %d [%s]\n", n, line);
  n = snprintf(line, 10, "%s", "this does not fit");
  printf("snprintf truncated %d [%s]\n", n, line);

  printf("strtol %ld %ld %ld %lu atoi %d\n", strtol("-12345", NULL, 10), strtol("0x7fff", NULL, 16),
         strtol("777", NULL, 8), strtoul("4294967295", NULL, 10), atoi("  99 bottles"));
  char *end;
  long parsed = strtol("123abc", &end, 10);
  printf("strtol stops at \"%s\" after %ld\n", end, parsed);

  int32_t arr[40];
  for (int i = 0; i < 40; ++i) arr[i] = (i * 7919) % 101 - 50;
  qsort(arr, 40, sizeof arr[0], cmp_int);
  printf("qsort %ld %ld %ld\n", (long)arr[0], (long)arr[20], (long)arr[39]);

  /* Heap: addresses differ between platforms only above the common range, so print
   * contents and relations, not pointers. */
  char *blocks[8];
  for (int i = 0; i < 8; ++i) {
    blocks[i] = malloc(16u << i);
    memset(blocks[i], 'a' + i, 16u << i);
  }
  for (int i = 0; i < 8; i += 2) free(blocks[i]);
  char *grown = realloc(blocks[1], 5000);
  int intact = 1;
  for (int i = 0; i < 32; ++i) intact &= grown[i] == 'b';
  printf("heap: realloc kept contents %d, 8-aligned %d\n", intact,
         ((uintptr_t)grown & 7u) == 0);
  free(grown);
  for (int i = 3; i < 8; i += 2) free(blocks[i]);
  void *huge = malloc(16u << 20);
  printf("malloc(16 MiB) fails cleanly: %d\n", huge == NULL);

  mix(acc);
  print_hash("memstr");
  return 0;
}
