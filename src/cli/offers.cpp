#include "cli/offers.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "registry.h"

namespace burst {

void fetch_all_offers(std::vector<FetchedOffers>* all) {
  std::vector<std::thread> threads;
  for (auto& f : *all) {
    if (!f.provider) continue;
    threads.emplace_back([&f] {
      f.gpu = f.provider->offers(true);
      f.cpu = f.provider->offers(false);
    });
  }
  for (auto& t : threads) t.join();
}

Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table) {
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  std::vector<std::string> names = spec.resources.providers;
  if (!provider_override.empty()) names = {provider_override};
  if (names.empty()) names = {"local"};
  std::vector<std::string> without_driver;
  // Each provider's offers are fetched on its own thread (each driver has its own HTTP client),
  // so the slowest API, not their sum, sets the wait; results are merged in `names` order.
  std::vector<FetchedOffers> fetched(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    auto p = make_provider(names[i], config, clock);
    if (!p.ok()) {
      if (p.error().code == ErrorCode::kInvalid) return p.error();
      fetched[i].made = p.error();
      continue;
    }
    fetched[i].provider = std::move(*p);
  }
  fetch_all_offers(&fetched);
  size_t live_gpu_offers = 0;  // one allocation for the merge below
  for (const auto& f : fetched)
    if (f.provider && f.gpu.ok()) live_gpu_offers += f.gpu->size();
  out.input.gpu_offers.reserve(live_gpu_offers);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    FetchedOffers& f = fetched[i];
    if (!f.provider) {
      out.input.unusable.push_back(f.made.message);
      without_driver.push_back(name);
      continue;
    }
    bool asked = true;
    for (bool gpu : {true, false}) {
      auto& offers = gpu ? f.gpu : f.cpu;
      if (!offers.ok()) {
        out.input.unusable.push_back(name + ": offers: " + offers.error().message);
        asked = asked && !gpu;
        continue;
      }
      auto& into = gpu ? out.input.gpu_offers : out.input.cpu_offers;
      into.insert(into.end(), std::make_move_iterator(offers->begin()),
                  std::make_move_iterator(offers->end()));
    }
    if (!asked && offline_table) {
      // Planning only: a driver that cannot list offers (no API key) falls back to the table.
      without_driver.push_back(name);
      continue;
    }
    out.input.providers.push_back(name);
    out.live_providers.push_back(name);
    out.providers[name] = std::move(f.provider);
  }
  if (offline_table && !without_driver.empty()) {
    auto table = load_price_table(config.config_dir);
    if (!table.ok()) return table.error();
    out.price_table_as_of = table->as_of;
    for (const PriceEntry& e : table->entries) {
      if (std::find(without_driver.begin(), without_driver.end(), e.provider) ==
          without_driver.end())
        continue;
      const GpuSpec* gpu = find_gpu(*out.catalog, e.gpu);
      Offer o{e.provider,
              e.gpu,
              e.gpu_count,
              gpu ? std::optional<double>(gpu->vram_gb) : std::nullopt,
              e.usd_per_hour,
              e.spot_usd_per_hour,
              e.region,
              true,
              "offline table " + table->as_of};
      out.input.gpu_offers.push_back(o);
    }
    for (const auto& name : without_driver) out.input.providers.push_back(name);
    out.table_providers = without_driver;
  }
  out.input.catalog = out.catalog.get();
  return out;
}

namespace {

// A parser for exactly this shape (an array of flat objects), because a generic JSON DOM spent
// most of `burst plan --offers` building maps for 10,000 offers (bench/README.md).
class OffersParser {
 public:
  OffersParser(const std::string& text, const std::string& name) : s_(text), name_(name) {}

  Result<std::vector<Offer>> parse() {
    std::vector<Offer> out;
    out.reserve(static_cast<size_t>(std::count(s_.begin(), s_.end(), '{')));
    ws();
    if (!eat('[')) return fail("expected a JSON array of offers");
    ws();
    if (eat(']')) return end_of_input(std::move(out));
    for (;;) {
      auto o = object(out.size());
      if (!o.ok()) return o.error();
      out.push_back(std::move(*o));
      ws();
      if (eat(']')) return end_of_input(std::move(out));
      if (!eat(','))
        return fail("expected ',' or ']' after offer " + std::to_string(out.size() - 1));
      ws();
    }
  }

 private:
  enum class Kind { kString, kNumber, kBool, kNull };
  struct Value {
    Kind kind = Kind::kNull;
    std::string str;
    double num = 0;
    bool b = false;
  };

  Result<std::vector<Offer>> end_of_input(std::vector<Offer> out) {
    ws();
    if (i_ != s_.size()) return fail("unexpected text after the array");
    return out;
  }
  Error fail(const std::string& what) const {
    return make_error(ErrorCode::kInvalid,
                      name_ + ": " + what + " (at byte " + std::to_string(i_) + ")");
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool word(const char* w) {
    const size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }

  Result<std::string> string() {
    if (!eat('"')) return fail("expected a string");
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c == '\\') {
        if (i_ >= s_.size()) break;
        char e = s_[i_++];
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out += e;
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          default:
            return fail("unsupported escape in a string");
        }
      } else {
        out += c;
      }
    }
    if (!eat('"')) return fail("unterminated string");
    return out;
  }

  Result<Value> value() {
    Value v;
    if (i_ < s_.size() && s_[i_] == '"') {
      auto str = string();
      if (!str.ok()) return str.error();
      v.kind = Kind::kString;
      v.str = std::move(*str);
    } else if (word("true") || word("false")) {
      v.kind = Kind::kBool;
      v.b = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
    } else if (word("null")) {
      v.kind = Kind::kNull;
    } else {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      v.num = std::strtod(begin, &end);
      if (end == begin || !std::isfinite(v.num)) return fail("expected a value");
      i_ += static_cast<size_t>(end - begin);
      v.kind = Kind::kNumber;
    }
    return v;
  }

  Result<Offer> object(size_t index) {
    const std::string at = "offer " + std::to_string(index) + ": ";
    if (!eat('{')) return fail(at + "expected an object");
    Offer o;
    o.gpu_count = 1;
    o.price_source = "offers file";
    bool has_provider = false, has_gpu = false, has_price = false;
    ws();
    if (!eat('}')) {
      for (;;) {
        ws();
        auto key = string();
        if (!key.ok()) return key.error();
        ws();
        if (!eat(':')) return fail(at + "expected ':'");
        ws();
        auto v = value();
        if (!v.ok()) return v.error();
        const std::string& k = *key;
        auto want = [&](Kind kind, const char* what) -> std::optional<Error> {
          if (v->kind == kind) return std::nullopt;
          return make_error(ErrorCode::kInvalid, name_ + ": " + at + k + ": expected " + what);
        };
        if (v->kind == Kind::kNull) {
          // Same as absent.
        } else if (k == "provider") {
          if (auto e = want(Kind::kString, "a string")) return *e;
          o.provider = v->str;
          has_provider = true;
        } else if (k == "gpu_type") {
          if (auto e = want(Kind::kString, "a string")) return *e;
          o.gpu_type = v->str;
          has_gpu = true;
        } else if (k == "region") {
          if (auto e = want(Kind::kString, "a string")) return *e;
          o.region = v->str;
        } else if (k == "gpu_count") {
          if (v->kind != Kind::kNumber || v->num < 1 || v->num != static_cast<int>(v->num))
            return make_error(ErrorCode::kInvalid,
                              name_ + ": " + at + "gpu_count: expected an integer >= 1");
          o.gpu_count = static_cast<int>(v->num);
        } else if (k == "usd_per_hour" || k == "spot_usd_per_hour") {
          if (v->kind != Kind::kNumber || v->num < 0)
            return make_error(ErrorCode::kInvalid,
                              name_ + ": " + at + k + ": expected a number >= 0");
          if (k == "usd_per_hour") {
            o.usd_per_hour = v->num;
            has_price = true;
          } else {
            o.spot_usd_per_hour = v->num;
          }
        } else if (k == "available") {
          if (auto e = want(Kind::kBool, "true or false")) return *e;
          o.available = v->b;
        }  // other keys (e.g. a driver's extra fields) are ignored
        ws();
        if (eat('}')) break;
        if (!eat(',')) return fail(at + "expected ',' or '}'");
      }
    }
    for (auto [has, key] : {std::pair{has_provider, "provider"}, std::pair{has_gpu, "gpu_type"},
                            std::pair{has_price, "usd_per_hour"}})
      if (!has) return make_error(ErrorCode::kInvalid, name_ + ": " + at + key + " is required");
    return o;
  }

  const std::string& s_;
  const std::string& name_;
  size_t i_ = 0;
};

}  // namespace

Result<std::vector<Offer>> parse_offers_json(const std::string& text, const std::string& name) {
  return OffersParser(text, name).parse();
}

Result<OfferSources> offers_from_file(const std::string& path, const std::string& provider_override,
                                      const Config& config) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return make_error(ErrorCode::kInvalid, path + ": cannot read the offers file");
  std::string text(static_cast<size_t>(f.tellg()), '\0');
  f.seekg(0);
  if (!f.read(text.data(), static_cast<std::streamsize>(text.size())))
    return make_error(ErrorCode::kInvalid, path + ": cannot read the offers file");
  auto offers = parse_offers_json(text, path);
  if (!offers.ok()) return offers.error();
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  for (Offer& o : *offers) {
    if (const GpuSpec* gpu = find_gpu(*out.catalog, o.gpu_type)) o.vram_gb = gpu->vram_gb;
    if (provider_override.empty() &&
        (out.input.providers.empty() || out.input.providers.back() != o.provider) &&
        std::find(out.input.providers.begin(), out.input.providers.end(), o.provider) ==
            out.input.providers.end())
      out.input.providers.push_back(o.provider);
  }
  if (!provider_override.empty()) out.input.providers = {provider_override};
  out.input.gpu_offers = std::move(*offers);
  out.input.catalog = out.catalog.get();
  return out;
}

}  // namespace burst
