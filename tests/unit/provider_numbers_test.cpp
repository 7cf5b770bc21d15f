// Numbers a provider sends that do not fit the field they go into: no undefined behaviour (a
// static_cast of an out-of-range double is), and the value is treated as absent. Found by the
// vast_json fuzzer ("num_gpus": 22293372036; tests/fuzz/regressions/vast_json/).
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "runpod/runpod_json.h"
#include "util/whole_number.h"
#include "vast/vast_json.h"

namespace burst {
namespace {

using nlohmann::json;

TEST(WholeNumber, AcceptsOnlyWholeNumbersInRange) {
  EXPECT_EQ(whole_number<int>(8), 8);
  EXPECT_EQ(whole_number<int>(-2147483648.0), std::numeric_limits<int>::min());
  EXPECT_EQ(whole_number<int>(2147483647.0), std::numeric_limits<int>::max());
  EXPECT_FALSE(whole_number<int>(2147483648.0));
  EXPECT_FALSE(whole_number<int>(22293372036.0));
  EXPECT_FALSE(whole_number<int>(1.5));
  EXPECT_FALSE(whole_number<int>(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(whole_number<int>(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(whole_number<long>(9007199254740992.0), 9007199254740992L);
  EXPECT_FALSE(whole_number<long>(9223372036854775808.0));  // 2^63
  EXPECT_EQ(port_number(22), 22);
  EXPECT_EQ(port_number(65535), 65535);
  EXPECT_EQ(port_number(65536), 0);
  EXPECT_EQ(port_number(0), 0);
  EXPECT_EQ(port_number(-22), 0);
}

TEST(ProviderNumbers, AVastOfferWithAnAbsurdGpuCountIsNotOffered) {
  auto offers = vast::parse_offers(R"({"success": true, "offers": [
      {"id": 4120109, "machine_id": 41201, "gpu_name": "RTX 4090", "num_gpus": 22293372036},
      {"id": 4120110, "machine_id": 1e300, "gpu_name": "RTX 4090", "num_gpus": "1e40"}]})");
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  ASSERT_EQ(offers->size(), 2u);
  EXPECT_EQ((*offers)[0].num_gpus, 0) << "0 GPUs: the provider leaves it out of the market";
  EXPECT_EQ((*offers)[1].num_gpus, 0);
  EXPECT_EQ((*offers)[1].machine_id, 0);
  // An id that does not fit is a shape burst does not know, like a fractional one.
  EXPECT_FALSE(vast::parse_offers(R"({"offers":[{"id":1e19,"gpu_name":"A40"}]})").ok());
  EXPECT_FALSE(
      vast::parse_offers(R"({"offers":[{"id":18446744073709551615,"gpu_name":"A40"}]})").ok());
}

TEST(ProviderNumbers, AnSshPortOutOfRangeIsNoEndpoint) {
  json inst = json::parse(R"({"id":7835610,"actual_status":"running","cur_state":"running",
    "public_ipaddr":"63.135.50.11","ports":{"22/tcp":[{"HostPort":"1e12"}]},
    "ssh_host":"ssh2281.vast.ai","ssh_port":70000})");
  auto v = vast::parse_instance(inst);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->ssh.port, 0) << "neither endpoint is usable";

  json pod = json::parse(R"({"id":"p","name":"burst-j-gpu","status":"RUNNING","cost":0.44,
    "ssh":{"direct":{"host":"195.26.233.3","port":1e30,"username":"root"}},
    "runtime":{"ports":[{"private":22,"public":-1,"ip":"195.26.233.3"}]}})");
  auto r = runpod::parse_pod(pod);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->ssh.port, 0);
}

}  // namespace
}  // namespace burst
