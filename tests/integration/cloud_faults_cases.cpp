// The table of cloud_faults_test.cpp: one row per emulated provider, and the fixture's helpers.
#include <nlohmann/json.hpp>

#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"
#include "lambda/lambda_provider.h"
#include "runpod/runpod_provider.h"
#include "vast/vast_provider.h"

namespace burst {

const CloudCase& runpod_case() {
  static const CloudCase row = [] {
    CloudCase c;
    c.name = "runpod";
    c.key = "rpa_FAULTTESTKEY0123456789";
    c.wrong_key = "rpa_wrong_key_000";
    c.make = [](const std::string& url, const std::string& key, std::unique_ptr<HttpClient> http,
                Clock& clock) {
      RunpodOptions o;
      o.base_url = url;
      o.api_key = key;
      return make_runpod_provider(o, std::move(http), clock);
    };
    c.region = "US-KS-2";
    c.gpu_type = "RTX_4090";
    c.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey faults";
    c.create_method = "POST";
    c.create_path = "/v2/pods";
    c.create_ok_status = 201;
    c.lookup_path = "/v2/pods?";
    c.list_path = "/v2/pods";
    c.get_path = "/v2/pods/";
    c.mount_path = "/workspace";
    c.pins_volume_id = true;
    c.arm = ArmCreate::kNow;
    c.requests_before_create = 1;  // the account key list: best effort, one try, not waited for
    c.retry_after_s = 4;
    c.slow_offers = "runpod: GET /v2/catalog/gpus: GET 127.0.0.1:";
    c.long_5xx =
        "offers: runpod: GET /v2/catalog/gpus: HTTP 502: upstream temporarily unavailable "
        "(gave up after 5 attempts)";
    c.rate_limited = "HTTP 429: rate limit exceeded";
    c.malformed_list = "runpod: list pods: the response is not the documented JSON";
    c.lingering_gets = 3;
    c.no_capacity_id = "NVIDIA GeForce RTX 4090";
    c.no_capacity_offers = NoCapacityOffers::kListedUnavailable;
    c.no_capacity_error = [](const PodRequest&) {
      return std::string(
          "create pod burst-j1-gpu: runpod: POST /v2/pods: HTTP 400: There are no longer any "
          "instances available with the requested specifications. Please refresh and try "
          "again.");
    };
    c.auth_call = Call::kCreate;
    c.auth_error = "create pod burst-j1-gpu: runpod: POST /v2/pods: HTTP 401: invalid bearer token";
    c.wrong_key_call = Call::kOffers;
    c.no_key_call = Call::kListPods;
    c.no_key_error =
        "runpod: no API key (set RUNPOD_API_KEY, or providers.runpod.api_key in config.yaml)";
    return c;
  }();
  return row;
}

const CloudCase& lambda_case() {
  static const CloudCase row = [] {
    CloudCase c;
    c.name = "lambda";
    c.key = "secret_FAULTTESTKEY_lambda_0123456789";
    c.wrong_key = "secret_wrong_key_000";
    c.api_prefix = "/api/v1";
    c.make = [](const std::string& url, const std::string& key, std::unique_ptr<HttpClient> http,
                Clock& clock) {
      LambdaOptions o;
      o.base_url = url;
      o.api_key = key;
      return make_lambda_provider(o, std::move(http), clock);
    };
    c.region = "us-west-1";
    c.gpu_type = "A10";
    c.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey faults";
    c.create_method = "POST";
    c.create_path = "/instance-operations/launch";
    c.create_ok_status = 0;  // not counted
    c.lookup_path = "/instances";
    c.list_path = "/instances";
    c.get_path = "/instances/";
    c.ssh_user = "ubuntu";
    c.mount_path = "/lambda/nfs/faults-vol";
    c.pod_region = "us-west-1";
    c.volume_path = "/lambda/nfs/faults-vol";
    c.arm = ArmCreate::kAfterWarmUp;
    c.retry_after_s = 12;  // Lambda allows one launch per 12 s
    c.slow_offers = "lambda: GET /lambda/api/v1/instance-types: GET 127.0.0.1";
    c.slow_offers_gave_up = false;
    c.long_5xx =
        "offers: lambda: GET /lambda/api/v1/instance-types: HTTP 502: "
        "provider/internal-unavailable: Provider unavailable (Try again shortly) (gave up after "
        "5 attempts)";
    c.rate_limited = "HTTP 429: global/rate-limited";
    c.malformed_list = "lambda: list instances: the response is not the documented JSON";
    c.lost_pod_names_itself = false;
    c.lingering_gets = 2;  // seen still terminating
    c.no_capacity_id = "gpu_1x_a10";
    c.offers_before_no_capacity = true;
    c.no_capacity_offers = NoCapacityOffers::kListedOnceUnavailable;  // without a region
    c.no_capacity_error = [](const PodRequest&) {
      return std::string(
          "create pod burst-j1-gpu: lambda: POST /lambda/api/v1/instance-operations/launch: HTTP "
          "400: instance-operations/launch/insufficient-capacity: Not enough capacity to fulfill "
          "launch request. (Choose an instance type with more availability, or try again "
          "later.)");
    };
    c.auth_call = Call::kOffers;
    c.auth_error =
        "offers: lambda: GET /lambda/api/v1/instance-types: HTTP 401: global/invalid-api-key: "
        "API key was invalid, expired, or deleted. (Check your API key.)";
    c.wrong_key_call = Call::kListPods;
    c.no_key_call = Call::kListVolumes;
    c.no_key_error =
        "lambda: no API key (set LAMBDA_API_KEY, or providers.lambda.api_key in config.yaml)";
    return c;
  }();
  return row;
}

const CloudCase& vast_case() {
  static const CloudCase row = [] {
    CloudCase c;
    c.name = "vast";
    c.key = "vast_FAULTTESTKEY0123456789abcdef";
    c.wrong_key = "vast_wrong_key_000";
    c.make = [](const std::string& url, const std::string& key, std::unique_ptr<HttpClient> http,
                Clock& clock) {
      VastOptions o;
      o.base_url = url;
      o.api_key = key;
      return make_vast_provider(o, std::move(http), clock);
    };
    c.region = "Washington, US (machine 41201)";
    c.gpu_type = "RTX_4090";
    c.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVastFaultsKey faults";
    c.create_method = "PUT";
    c.create_path = "/api/v0/asks/";
    c.create_ok_status = 200;
    c.lookup_path = "/api/v1/instances/";  // by label
    c.list_path = "/api/v1/instances/";
    c.get_path = "/api/v0/instances/";
    c.ssh_user = "root";
    c.mount_path = "/workspace";
    c.pod_region = "41201";  // the volume's machine
    c.label_is_name = true;
    c.arm = ArmCreate::kOnCreate;
    c.retry_after_s = 4;
    c.slow_offers = "vast: POST /vast/api/v0/bundles/: POST 127.0.0.1";
    c.long_5xx =
        "offers: vast: POST /vast/api/v0/bundles/: HTTP 502: server_error: upstream "
        "temporarily unavailable (gave up after 5 attempts)";
    c.rate_limited = "HTTP 429: API requests too frequent";  // Vast sends no Retry-After
    c.malformed_list = "vast: list instances: the response is not the documented JSON";
    c.lingering_gets = 3;
    c.count_create_after_timeout = true;
    c.no_capacity_id = "RTX 4090";
    c.no_capacity_offers = NoCapacityOffers::kNotListed;  // a rented offer is not listed
    c.no_capacity_error = [](const PodRequest& req) {
      return "create instance burst-j1-gpu: vast: no rentable RTX_4090 x1 offer on machine "
             "41201 (where volume " +
             req.volume_id + " lives)";
    };
    c.auth_call = Call::kCreate;
    c.auth_error =
        "create instance burst-j1-gpu: list ssh keys: vast: GET /vast/api/v0/ssh/: HTTP 401: "
        "auth_error: Invalid user key";
    c.wrong_key_call = Call::kOffers;
    c.no_key_call = Call::kListPods;
    c.no_key_error =
        "vast: no API key (set VAST_API_KEY, or providers.vast.api_key in config.yaml)";
    return c;
  }();
  return row;
}

std::unique_ptr<Provider> CloudFaults::provider(const std::string& key, Duration timeout) {
  CurlOptions o;
  o.total_timeout = timeout;
  return c_.make(cloud_.provider_url(c_.name), key,
                 std::make_unique<HookedHttp>(make_curl_http_client(o), &hook_), clock_);
}

void CloudFaults::on_create(const fakecloud::Faults& f) {
  hook_ = [this, f](const HttpRequest& r) {
    if (r.method == c_.create_method && r.url.find(c_.create_path) != std::string::npos) {
      set(f);
      hook_ = nullptr;
    }
  };
}

void CloudFaults::arm_create(fakecloud::Faults f) {
  switch (c_.arm) {
    case ArmCreate::kNow:
      if (f.errors_5xx) f.errors_5xx += c_.requests_before_create;
      if (f.rate_limits) f.rate_limits += c_.requests_before_create;
      set(f);
      return;
    case ArmCreate::kOnCreate:
      on_create(f);
      return;
    case ArmCreate::kAfterWarmUp:
      warm_up();
      set(f);
      return;
  }
}

void CloudFaults::warm_up() {
  PodRecord rec = record("warm");
  auto pod = create(request("warm"), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(verify_delete(&rec).ok());
}

PodRequest CloudFaults::request(const std::string& role) {
  auto vol = driver_->ensure_volume("faults-vol", 10, c_.region);
  EXPECT_TRUE(vol.ok()) << vol.error().message;
  PodRequest r;
  r.job_id = "j1";
  r.name = pod_name("j1", role);
  r.gpu_type = c_.gpu_type;
  r.gpu_count = 1;
  r.image = "python:3.11-slim";
  r.volume_id = vol.ok() ? vol->id : "";
  r.mount_path = "/workspace";
  r.ssh_public_key = c_.public_key;
  return r;
}

PodRecord CloudFaults::record(const std::string& role) {
  PodRecord rec;
  rec.job_id = "j1";
  rec.role = role;
  rec.gpu_type = c_.gpu_type;
  rec.gpu_count = 1;
  return rec;
}

std::string CloudFaults::fails(Provider& p, Call call, ErrorCode* code) {
  auto out = [&](const Error& e) {
    *code = e.code;
    return e.message;
  };
  switch (call) {
    case Call::kCreate: {
      PodRecord rec = record();
      auto r = create(request(), &rec);
      return r.ok() ? "" : out(r.error());
    }
    case Call::kOffers: {
      auto r = p.offers(true);
      return r.ok() ? "" : out(r.error());
    }
    case Call::kListPods: {
      auto r = p.list_pods();
      return r.ok() ? "" : out(r.error());
    }
    case Call::kListVolumes: {
      auto r = p.list_volumes();
      return r.ok() ? "" : out(r.error());
    }
  }
  return "";
}

}  // namespace burst
