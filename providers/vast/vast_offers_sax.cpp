// Vast offers from the parser's events (vast_offers_sax.h).
#include "vast/vast_offers_sax.h"

#include <cmath>
#include <optional>

#include "util/whole_number.h"

namespace burst::vast {
namespace {

// The offers straight from the parser's events into VastOffer, without a DOM: a search answers
// dozens of fields per offer for thousands of offers, and a DOM of them cost about 3x the time
// of this (bench/README.md, "burst offers"). Same rules as reading a DOM would apply: numbers
// sent as strings are read; only `true` is true; an offer needs an integer id and a gpu_name.
// Depth: 1 the answer object, 2 its "offers" array, 3 an offer.
class OffersSax : public json::json_sax_t {
 public:
  explicit OffersSax(std::vector<VastOffer>* out) : out_(out) {}
  // The answer was {"offers": [offer objects...], ...}.
  bool documented() const { return ok_ && seen_offers_; }

  bool null() override {
    if (field("rentable")) cur_.rentable = false;  // only true is true
    return scalar();
  }
  bool boolean(bool v) override {
    if (field("rentable")) cur_.rentable = v;
    if (field("rented")) cur_.rented = v;
    return scalar();
  }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), true); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(static_cast<double>(v), true);
  }
  bool number_float(number_float_t v, const string_t&) override { return number(v, false); }
  bool string(string_t& v) override {
    if (field("gpu_name"))
      cur_.gpu_name = std::move(v);
    else if (field("geolocation"))
      cur_.geolocation = std::move(v);
    else if (field("id"))
      return fail();  // the id a create rents must be an integer
    else if (at_offer())
      return number(std::atof(v.c_str()), false);
    return scalar();
  }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override {
    if (depth_ == 3) scalar();  // a nested value still counts as present
    ++depth_;
    if (depth_ == 1) root_object_ = true;
    if (at_offer()) {
      cur_ = VastOffer();
      has_id_ = has_gpu_ = false;
    }
    return true;
  }
  bool end_object() override {
    if (at_offer()) {
      if (!has_id_ || !has_gpu_) return fail();
      out_->push_back(std::move(cur_));
    }
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (!scalar()) return false;  // an array is no offer either
    ++depth_;
    if (depth_ == 2 && root_object_ && key_ == "offers") in_offers_ = seen_offers_ = true;
    return true;
  }
  bool end_array() override {
    if (depth_ == 2) in_offers_ = false;
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return fail();
  }

 private:
  bool at_offer() const { return depth_ == 3 && in_offers_; }
  bool field(const char* name) const { return at_offer() && key_ == name; }
  bool fail() {
    ok_ = false;
    return false;
  }
  // Any value: notes gpu_name's presence; directly inside "offers" only objects may stand.
  bool scalar() {
    if (field("gpu_name")) has_gpu_ = true;
    return depth_ == 2 && in_offers_ ? fail() : true;
  }
  bool number(double v, bool integer) {
    if (field("id")) {
      std::optional<long> id = whole_number<long>(v);
      if (!integer || !id) return fail();
      cur_.id = *id;
      has_id_ = true;
    } else if (field("machine_id")) {
      cur_.machine_id = whole_number<long>(v).value_or(0);
    } else if (field("num_gpus")) {
      cur_.num_gpus = whole_number<int>(v).value_or(0);  // 0: not offered
    } else if (field("gpu_ram")) {
      cur_.gpu_ram_mb = v;
    } else if (field("dph_total")) {
      cur_.dph_total = v;
    } else if (field("dph_base")) {
      cur_.dph_base = v > 0 ? v : 0;
    } else if (field("min_bid")) {
      cur_.min_bid = v > 0 ? v : 0;
    } else if (field("storage_cost")) {
      cur_.storage_cost = v;
    } else if (field("disk_bw")) {
      cur_.disk_bw = v > 0 ? v : 0;
    } else if (field("inet_down")) {
      cur_.inet_down = v > 0 && std::isfinite(v) ? v : 0;
    } else if (field("inet_down_cost")) {
      cur_.inet_down_cost = v > 0 && std::isfinite(v) ? v : 0;
    } else if (field("inet_up_cost")) {
      cur_.inet_up_cost = v > 0 && std::isfinite(v) ? v : 0;
    } else if (field("rentable")) {
      cur_.rentable = false;  // only true is true
    }
    return scalar();
  }

  std::vector<VastOffer>* out_;
  VastOffer cur_;
  std::string key_;
  int depth_ = 0;
  bool root_object_ = false, in_offers_ = false, seen_offers_ = false, ok_ = true;
  bool has_id_ = false, has_gpu_ = false;
};

}  // namespace

bool read_offers(const std::string& body, std::vector<VastOffer>* out) {
  OffersSax sax(out);
  return json::sax_parse(body, &sax) && sax.documented();
}

}  // namespace burst::vast
