/* The C API from C: a missing socket is IPUDRV_E_TRANSPORT. */
#include <ipudrv/ipudrv.h>
#include <stdio.h>

int main(void) {
  ipudrv_device* dev = 0;
  const int s = ipudrv_open("unix:/nonexistent/ipusim.sock", 0, &dev);
  printf("consumer_c: %s: %s\n", ipudrv_status_name(s), ipudrv_last_error());
  return s == IPUDRV_E_TRANSPORT && dev == 0 ? 0 : 1;
}
