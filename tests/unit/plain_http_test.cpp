// The plain-HTTP rule (http/curl_http_client.h): https anywhere, plain http only to this machine,
// with the host as libcurl itself parses the URL. Each case is a URL that once fooled a
// hand-written parser, or could.
#include <gtest/gtest.h>

#include "http/curl_http_client.h"

namespace burst {
namespace {

TEST(PlainHttp, LoopbackHostsAreAllowedOverHttp) {
  for (const char* url : {"http://127.0.0.1:18443/v2/pods", "http://localhost/x",
                          "http://[::1]:8080/x", "HTTP://127.0.0.1:1/x", "http://LOCALHOST:65535/",
                          "Http://127.0.0.1", "http://127.0.0.1:443/x?y=1#z"}) {
    Status st = check_api_url(url);
    EXPECT_TRUE(st.ok()) << url << ": " << st.error().message;
  }
}

TEST(PlainHttp, HttpsIsAllowedAnywhere) {
  for (const char* url : {"https://api.runpod.io/v2/pods", "HTTPS://10.1.2.3:8443/x",
                          "https://user:pw@example.com/x"})
    EXPECT_TRUE(check_api_url(url).ok()) << url;
}

TEST(PlainHttp, EveryOtherHostIsRefused) {
  for (const char* url :
       {"http://127.0.0.1:1@127.0.0.2:18443/x",  // userinfo: the host is 127.0.0.2
        "http://localhost:pw@evil.example/x",    // the same, with a name
        "http://127.0.0.1@evil.example/x",
        "http://127.0.0.2/x",  // 127/8 beyond .1: not needed, not allowed
        "http://127.0.0.1.evil.example/x", "http://localhost.evil.example/x", "http://[::2]/x",
        "http://[::ffff:10.0.0.1]/x", "http://10.1.2.3:8080/x", "http://api.runpod.io/v2/pods",
        "HTTP://EVIL.example/x",
        "ftp://127.0.0.1/x",  // not http at all
        "file:///etc/passwd", "127.0.0.1:8080/x", "", "http://"}) {
    Status st = check_api_url(url);
    ASSERT_FALSE(st.ok()) << url;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalid) << url;
    EXPECT_NE(st.error().message.find("refusing to send an API request to"), std::string::npos)
        << st.error().message;
  }
}

TEST(PlainHttp, TheRefusalNamesTheHostButNoUserinfoOrQuery) {
  Status st = check_api_url("http://127.0.0.1:s3cret@127.0.0.2:18443/v2/pods?api_key=k3y");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("127.0.0.2:18443 over http"), std::string::npos)
      << st.error().message;
  EXPECT_EQ(st.error().message.find("s3cret"), std::string::npos) << st.error().message;
  EXPECT_EQ(st.error().message.find("k3y"), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace burst
