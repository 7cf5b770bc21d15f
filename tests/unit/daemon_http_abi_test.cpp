// burstd's socket server and cpp-httplib must agree on the library's class layout. Debian ships
// cpp-httplib compiled with -DCPPHTTPLIB_OPENSSL_SUPPORT (and zlib, brotli), which changes it;
// socket_server.cpp was once compiled without those flags, so each httplib::Client it made on
// the stack (the "is another burstd serving this socket?" check) was 8 bytes where the library
// wrote 16. This test is compiled with the flags pkg-config gives (through burst_fakecloud).
#include <gtest/gtest.h>
#include <httplib.h>

#include "daemon/socket_server.h"

namespace burst::daemon {
namespace {

TEST(DaemonHttp, TheSocketServerSeesCppHttplibsClassLayout) {
  EXPECT_EQ(httplib_client_size(), sizeof(httplib::Client))
      << "src/daemon/socket_server.cpp must be compiled with cpp-httplib's pkg-config flags";
}

}  // namespace
}  // namespace burst::daemon
