// The offers file through nlohmann's SAX interface: each event lands straight in an Offer.
#include "json/offers_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace burst {
namespace {

class OffersSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit OffersSax(const std::string& name) : name_(name) {}

  std::vector<Offer> offers;
  std::optional<Error> error;

  bool null() override { return scalar(Value{}); }
  bool boolean(bool b) override { return scalar(Value{Kind::kBool, b}); }
  bool number_integer(number_integer_t n) override {
    return scalar(Value{Kind::kNumber, false, static_cast<double>(n)});
  }
  bool number_unsigned(number_unsigned_t n) override {
    return scalar(Value{Kind::kNumber, false, static_cast<double>(n)});
  }
  bool number_float(number_float_t n, const string_t&) override {
    return scalar(Value{Kind::kNumber, false, n});
  }
  bool string(string_t& s) override { return scalar(Value{Kind::kString, false, 0, &s}); }
  bool binary(binary_t&) override { return fail("expected a value"); }

  bool start_object(std::size_t) override {
    if (depth_ == 0) return fail("expected a JSON array of offers");
    if (depth_ == 1) {
      offers.emplace_back();
      offers.back().gpu_count = 1;
      offers.back().price_source = "offers file";
      has_provider_ = has_gpu_ = has_price_ = false;
    } else if (depth_ == 2 && known(key_)) {
      return bad_field(expected_for(key_));
    }
    ++depth_;
    return true;
  }
  bool end_object() override {
    if (--depth_ != 1) return true;
    for (auto [has, key] : {std::pair{has_provider_, "provider"}, std::pair{has_gpu_, "gpu_type"},
                            std::pair{has_price_, "usd_per_hour"}})
      if (!has) return fail(index() + key + " is required");
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1) return fail(index_of_next() + "expected an object");
    if (depth_ == 2 && known(key_)) return bad_field(expected_for(key_));
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 2) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    if (!error) {
      std::string why = e.what();
      // "[json.exception.parse_error.101] parse error at line 1, column 3: syntax error ..."
      if (size_t at = why.find("syntax error"); at != std::string::npos) why = why.substr(at);
      error = make_error(ErrorCode::kInvalid, name_ + ": invalid JSON at byte " +
                                                  std::to_string(position ? position - 1 : 0) +
                                                  ": " + why);
    }
    return false;
  }

 private:
  enum class Kind { kNull, kBool, kNumber, kString };
  struct Value {
    Kind kind = Kind::kNull;
    bool b = false;
    double num = 0;
    std::string* str = nullptr;
  };

  static bool known(const std::string& k) {
    return k == "provider" || k == "gpu_type" || k == "region" || k == "gpu_count" ||
           k == "usd_per_hour" || k == "spot_usd_per_hour" || k == "available";
  }
  static const char* expected_for(const std::string& k) {
    if (k == "gpu_count") return "an integer >= 1";
    if (k == "usd_per_hour" || k == "spot_usd_per_hour") return "a number >= 0";
    if (k == "available") return "true or false";
    return "a string";
  }

  std::string index() const { return "offer " + std::to_string(offers.size() - 1) + ": "; }
  std::string index_of_next() const { return "offer " + std::to_string(offers.size()) + ": "; }
  bool fail(const std::string& what) {
    error = make_error(ErrorCode::kInvalid, name_ + ": " + what);
    return false;
  }
  bool bad_field(const char* what) { return fail(index() + key_ + ": expected " + what); }

  bool scalar(const Value& v) {
    if (depth_ == 0) return fail("expected a JSON array of offers");
    if (depth_ == 1) return fail(index_of_next() + "expected an object");
    if (depth_ > 2 || v.kind == Kind::kNull || !known(key_)) return true;  // null: as absent
    Offer& o = offers.back();
    if (key_ == "provider" || key_ == "gpu_type" || key_ == "region") {
      if (v.kind != Kind::kString) return bad_field("a string");
      if (key_ == "provider") {
        o.provider = std::move(*v.str);
        has_provider_ = true;
      } else if (key_ == "gpu_type") {
        o.gpu_type = std::move(*v.str);
        has_gpu_ = true;
      } else {
        o.region = std::move(*v.str);
      }
    } else if (key_ == "gpu_count") {
      if (v.kind != Kind::kNumber || v.num < 1 || v.num > 1e6 || v.num != static_cast<int>(v.num))
        return bad_field("an integer >= 1");
      o.gpu_count = static_cast<int>(v.num);
    } else if (key_ == "usd_per_hour" || key_ == "spot_usd_per_hour") {
      if (v.kind != Kind::kNumber || v.num < 0) return bad_field("a number >= 0");
      if (key_ == "usd_per_hour") {
        o.usd_per_hour = v.num;
        has_price_ = true;
      } else {
        o.spot_usd_per_hour = v.num;
      }
    } else if (v.kind != Kind::kBool) {
      return bad_field("true or false");
    } else {
      o.available = v.b;
    }
    return true;
  }

  const std::string& name_;
  int depth_ = 0;
  std::string key_;
  bool has_provider_ = false, has_gpu_ = false, has_price_ = false;
};

}  // namespace

Result<std::vector<Offer>> parse_offers_json(std::string_view text, const std::string& name) {
  OffersSax sax(name);
  // One allocation for the offers: each object in the file is at most one offer.
  sax.offers.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '{')));
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  if (sax.error) return *sax.error;
  if (!ok) return make_error(ErrorCode::kInvalid, name + ": invalid JSON");
  return std::move(sax.offers);
}

}  // namespace burst
