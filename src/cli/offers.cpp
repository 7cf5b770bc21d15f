#include "cli/offers.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "registry.h"
#include "util/heap_reserve.h"

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

bool has_api_key(const Config& config, const std::string& provider) {
  auto it = config.clouds.find(provider);
  return it == config.clouds.end() || !it->second.api_key.empty();  // local needs none
}

namespace {

std::string key_variable(const std::string& provider) {
  if (const ProviderTraits* t = find_provider_traits(provider); t && !t->api_key_env.empty())
    return t->api_key_env;
  std::string var = provider;
  for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return var + "_API_KEY";
}

}  // namespace

Error api_key_refused(const std::string& provider, const Error& why) {
  std::string status;
  if (size_t at = why.message.find("HTTP "); at != std::string::npos)
    status = " (" + why.message.substr(at, 8) + ")";
  return make_error(ErrorCode::kAuth,
                    provider + ": the API key was refused" + status + ": " + why.message +
                        "; set " + key_variable(provider) + " (or providers." + provider +
                        ".api_key in config.yaml) to a valid key; `burst check` tests the set-up");
}

Error no_api_key(const std::string& provider) {
  return make_error(ErrorCode::kAuth,
                    provider + ": no API key is configured; set " + key_variable(provider) +
                        " (or providers." + provider +
                        ".api_key in config.yaml); `burst check` tests the set-up");
}

Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table) {
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  std::vector<std::string> names = spec.resources.providers;
  if (!provider_override.empty()) names = {provider_override};
  if (names.empty()) names = {default_provider_name()};
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
  std::vector<std::string> no_key;  // clouds with no API key configured
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    FetchedOffers& f = fetched[i];
    if (!f.provider) {
      out.input.unusable.push_back(f.made.message);
      without_driver.push_back(name);
      continue;
    }
    const Error* refused = nullptr;
    for (const auto* r : {&f.gpu, &f.cpu})
      if (!r->ok() && r->error().code == ErrorCode::kAuth && !refused) refused = &r->error();
    if (refused) {
      // A key that is configured but refused is an error the user must fix: never priced from
      // the table as if all were well. No key at all: the table (planning) or skipped (run).
      if (has_api_key(config, name)) return api_key_refused(name, *refused);
      no_key.push_back(name);
      out.input.unusable.push_back(name + ": offers: " + refused->message);
      if (offline_table) without_driver.push_back(name);
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
      // Planning only: a driver that cannot list offers falls back to the table.
      without_driver.push_back(name);
      continue;
    }
    out.input.providers.push_back(name);
    out.live_providers.push_back(name);
    out.providers[name] = std::move(f.provider);
  }
  if (!offline_table && out.providers.empty() && !no_key.empty()) return no_api_key(no_key.front());
  if (offline_table && !without_driver.empty()) {
    auto table = load_price_table(config.config_dir, offline_price_provider_names());
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
    out.table_note = "offline prices from config/prices.yaml (dated " + table->as_of + ")";
    if (!no_key.empty()) {
      std::string list;
      for (const auto& n : no_key) list += (list.empty() ? "" : ", ") + n;
      out.table_note += ": no API key for " + list;
    }
  }
  attach_traits(&out.input.gpu_offers);
  attach_traits(&out.input.cpu_offers);
  out.input.catalog = out.catalog.get();
  return out;
}

namespace {

// A parser for exactly this shape (an array of flat objects), because a generic JSON DOM spent
// most of `burst plan --offers` building maps for 10,000 offers (bench/README.md). Keys and
// unescaped strings are read in place, numbers with from_chars, and an error's context is built
// only when there is an error.
class OffersParser {
 public:
  OffersParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Result<std::vector<Offer>> parse() {
    std::vector<Offer> out;
    out.reserve(static_cast<size_t>(std::count(s_.begin(), s_.end(), '{')));
    ws();
    if (!eat('[')) return fail("expected a JSON array of offers");
    ws();
    if (eat(']')) return end_of_input(std::move(out));
    for (;;) {
      out.emplace_back();
      if (auto e = object(out.size() - 1, out.back())) return *e;
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
    std::string_view str;  // into the text, or into `unescaped_`
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
  Error fail_at(size_t index, const std::string& what) const {
    return fail("offer " + std::to_string(index) + ": " + what);
  }
  Error bad_field(size_t index, std::string_view key, const char* what) const {
    return make_error(ErrorCode::kInvalid, name_ + ": offer " + std::to_string(index) + ": " +
                                               std::string(key) + ": expected " + what);
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
  bool word(std::string_view w) {
    if (s_.substr(std::min(i_, s_.size()), w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

  // The string at i_, as a view into the text when it has no escapes, else into `buf`.
  std::optional<Error> string(std::string_view* out, std::string* buf) {
    if (!eat('"')) return fail("expected a string");
    const size_t begin = i_;
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\\') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return fail("control character in a string");
      ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '"') {
      *out = s_.substr(begin, i_ - begin);
      ++i_;
      return std::nullopt;
    }
    buf->assign(s_.data() + begin, i_ - begin);
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        *buf += c;
        continue;
      }
      if (i_ >= s_.size()) break;
      switch (char e = s_[i_++]) {
        case '"':
        case '\\':
        case '/':
          *buf += e;
          break;
        case 'n':
          *buf += '\n';
          break;
        case 't':
          *buf += '\t';
          break;
        case 'r':
          *buf += '\r';
          break;
        case 'b':
          *buf += '\b';
          break;
        case 'f':
          *buf += '\f';
          break;
        default:
          return fail("unsupported escape in a string");
      }
    }
    if (!eat('"')) return fail("unterminated string");
    *out = *buf;
    return std::nullopt;
  }

  std::optional<Error> value(Value* v) {
    if (i_ < s_.size() && s_[i_] == '"') {
      v->kind = Kind::kString;
      return string(&v->str, &value_buf_);
    }
    if (word("true") || word("false")) {
      v->kind = Kind::kBool;
      v->b = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
    } else if (word("null")) {
      v->kind = Kind::kNull;
    } else {
      const char* begin = s_.data() + i_;
      const char* end = s_.data() + s_.size();
      // Locale-free and allocation-free; "inf" and "nan" are refused below.
      auto [ptr, ec] = std::from_chars(begin, end, v->num);
      if (ec != std::errc() || ptr == begin || !std::isfinite(v->num))
        return fail("expected a value");
      i_ += static_cast<size_t>(ptr - begin);
      v->kind = Kind::kNumber;
    }
    return std::nullopt;
  }

  std::optional<Error> object(size_t index, Offer& o) {
    if (!eat('{')) return fail_at(index, "expected an object");
    o.gpu_count = 1;
    o.price_source = "offers file";
    bool has_provider = false, has_gpu = false, has_price = false;
    ws();
    if (!eat('}')) {
      for (;;) {
        ws();
        std::string_view k;
        if (auto e = string(&k, &key_buf_)) return e;
        ws();
        if (!eat(':')) return fail_at(index, "expected ':'");
        ws();
        Value v;
        if (auto e = value(&v)) return e;
        if (v.kind == Kind::kNull) {
          // Same as absent.
        } else if (k == "provider" || k == "gpu_type" || k == "region") {
          if (v.kind != Kind::kString) return bad_field(index, k, "a string");
          if (k == "provider") {
            o.provider = v.str;
            has_provider = true;
          } else if (k == "gpu_type") {
            o.gpu_type = v.str;
            has_gpu = true;
          } else {
            o.region = v.str;
          }
        } else if (k == "gpu_count") {
          if (v.kind != Kind::kNumber || v.num < 1 || v.num != static_cast<int>(v.num))
            return bad_field(index, k, "an integer >= 1");
          o.gpu_count = static_cast<int>(v.num);
        } else if (k == "usd_per_hour" || k == "spot_usd_per_hour") {
          if (v.kind != Kind::kNumber || v.num < 0) return bad_field(index, k, "a number >= 0");
          if (k == "usd_per_hour") {
            o.usd_per_hour = v.num;
            has_price = true;
          } else {
            o.spot_usd_per_hour = v.num;
          }
        } else if (k == "available") {
          if (v.kind != Kind::kBool) return bad_field(index, k, "true or false");
          o.available = v.b;
        }  // other keys (e.g. a driver's extra fields) are ignored
        ws();
        if (eat('}')) break;
        if (!eat(',')) return fail_at(index, "expected ',' or '}'");
      }
    }
    for (auto [has, key] : {std::pair{has_provider, "provider"}, std::pair{has_gpu, "gpu_type"},
                            std::pair{has_price, "usd_per_hour"}})
      if (!has)
        return make_error(ErrorCode::kInvalid,
                          name_ + ": offer " + std::to_string(index) + ": " + key + " is required");
    return std::nullopt;
  }

  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
  std::string key_buf_, value_buf_;
};

}  // namespace

Result<std::vector<Offer>> parse_offers_json(std::string_view text, const std::string& name) {
  return OffersParser(text, name).parse();
}

Result<OfferSources> offers_from_file(const std::string& path, const std::string& provider_override,
                                      const Config& config) {
  // Mapped, not read: 10,000 offers are a megabyte, and copying it into fresh heap pages cost
  // a page fault per 4 KiB (bench/README.md, "burst plan").
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorCode::kInvalid,
                      path + ": cannot read the offers file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kInvalid, path + ": cannot read the offers file: not a file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map =
      size == 0 ? nullptr : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED)
    return make_error(ErrorCode::kInvalid,
                      path + ": cannot read the offers file: " + std::strerror(errno));
  const std::string_view text(static_cast<const char*>(map), map ? size : 0);
  // The offers, their candidates and the plan take about 6x the file's size on the heap.
  reserve_heap(size * 6);
  auto offers = parse_offers_json(text, path);
  if (map) ::munmap(map, size);
  if (!offers.ok()) return offers.error();
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  // 10,000 offers name a few dozen GPU types: look each name up once.
  std::unordered_map<std::string_view, const GpuSpec*> gpus;
  for (Offer& o : *offers) {
    auto [it, fresh] = gpus.try_emplace(o.gpu_type, nullptr);
    if (fresh) it->second = find_gpu(*out.catalog, o.gpu_type);
    if (const GpuSpec* gpu = it->second) o.vram_gb = gpu->vram_gb;
    if (provider_override.empty() &&
        (out.input.providers.empty() || out.input.providers.back() != o.provider) &&
        std::find(out.input.providers.begin(), out.input.providers.end(), o.provider) ==
            out.input.providers.end())
      out.input.providers.push_back(o.provider);
  }
  if (!provider_override.empty()) out.input.providers = {provider_override};
  out.input.gpu_offers = std::move(*offers);
  attach_traits(&out.input.gpu_offers);
  out.input.catalog = out.catalog.get();
  return out;
}

}  // namespace burst
