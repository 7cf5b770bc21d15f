// Registry answer parsers (image/registry_parse.h).
#include "image/registry_parse.h"

#include <cctype>

#include "json/json_value.h"

namespace burst {
namespace {

Error regparse_bad(const std::string& why) {
  return make_error(ErrorCode::kInvalid, "registry answer: " + why);
}

std::string_view regparse_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool regparse_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// JsonValue converts recursively: a hostile "[[[[..." a megabyte deep would overflow the stack.
// Counts bracket depth outside strings before anything is parsed.
constexpr int kRegparseMaxDepth = 32;
bool regparse_depth_ok(std::string_view body) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kRegparseMaxDepth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

std::optional<JsonValue> regparse_json(std::string_view body) {
  if (!regparse_depth_ok(body)) return std::nullopt;
  return JsonValue::parse(body);
}

// A size: a non-negative integer that fits the cap.
bool regparse_size(const JsonValue& v, int64_t* out) {
  if (v.type() == JsonValue::Type::kInt) {
    if (v.as_int() < 0 || v.as_int() > kRegistryMaxImageBytes) return false;
    *out = v.as_int();
    return true;
  }
  if (v.type() == JsonValue::Type::kUint) {
    if (v.as_uint() > static_cast<uint64_t>(kRegistryMaxImageBytes)) return false;
    *out = static_cast<int64_t>(v.as_uint());
    return true;
  }
  return false;
}

Result<ManifestAnswer> regparse_index(const JsonValue& doc) {
  const JsonValue* list = doc.find("manifests");
  if (!list || list->type() != JsonValue::Type::kArray)
    return regparse_bad("index without manifests");
  if (list->items().size() > kRegistryMaxEntries) return regparse_bad("index too long");
  for (const JsonValue& m : list->items()) {
    if (!m.is_object()) continue;
    const JsonValue* platform = m.find("platform");
    if (!platform || !platform->is_object()) continue;
    if (platform->string_or("os", "") != "linux" ||
        platform->string_or("architecture", "") != "amd64")
      continue;
    std::string digest = m.string_or("digest", "");
    if (digest.empty() || digest.size() > 200 || digest.find(':') == std::string::npos)
      return regparse_bad("linux/amd64 entry without a digest");
    for (char c : digest)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != ':' && c != '+' && c != '.' &&
          c != '_' && c != '-')
        return regparse_bad("linux/amd64 entry with a bad digest");
    ManifestAnswer out;
    out.is_index = true;
    out.amd64_digest = std::move(digest);
    return out;
  }
  return make_error(ErrorCode::kNotFound, "registry answer: the index has no linux/amd64 image");
}

Result<ManifestAnswer> regparse_image(const JsonValue& doc) {
  ManifestAnswer out;
  const JsonValue* config = doc.find("config");
  int64_t total = 0;
  if (!config || !config->is_object() || !config->find("size") ||
      !regparse_size(*config->find("size"), &total))
    return regparse_bad("manifest without a valid config.size");
  const JsonValue* layers = doc.find("layers");
  if (!layers || layers->type() != JsonValue::Type::kArray)
    return regparse_bad("manifest without layers");
  if (layers->items().size() > kRegistryMaxEntries) return regparse_bad("too many layers");
  for (const JsonValue& layer : layers->items()) {
    int64_t size = 0;
    const JsonValue* s = layer.is_object() ? layer.find("size") : nullptr;
    if (!s || !regparse_size(*s, &size)) return regparse_bad("a layer without a valid size");
    total += size;  // both <= the cap, so no overflow
    if (total > kRegistryMaxImageBytes) return regparse_bad("image size implausibly large");
  }
  out.bytes = total;
  return out;
}

}  // namespace

Result<BearerChallenge> parse_bearer_challenge(std::string_view header) {
  if (header.size() > 4096) return regparse_bad("WWW-Authenticate header too long");
  std::string_view h = regparse_trim(header);
  if (h.size() < 7 || !regparse_iequal(h.substr(0, 6), "bearer") || h[6] != ' ')
    return regparse_bad("WWW-Authenticate is not a Bearer challenge");
  std::string_view rest = h.substr(7);
  BearerChallenge out;
  // key=value or key="quoted value", separated by commas (RFC 7235 auth-params).
  while (!rest.empty()) {
    rest = regparse_trim(rest);
    while (!rest.empty() && rest.front() == ',') rest = regparse_trim(rest.substr(1));
    if (rest.empty()) break;
    const size_t eq = rest.find('=');
    if (eq == std::string_view::npos) return regparse_bad("WWW-Authenticate parameter without '='");
    std::string_view key = regparse_trim(rest.substr(0, eq));
    rest = regparse_trim(rest.substr(eq + 1));
    std::string value;
    if (!rest.empty() && rest.front() == '"') {
      size_t i = 1;
      for (; i < rest.size() && rest[i] != '"'; ++i) {
        if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
        value.push_back(rest[i]);
      }
      if (i >= rest.size()) return regparse_bad("WWW-Authenticate: unterminated quote");
      rest = rest.substr(i + 1);
    } else {
      const size_t comma = rest.find(',');
      value = std::string(regparse_trim(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma);
    }
    if (regparse_iequal(key, "realm"))
      out.realm = std::move(value);
    else if (regparse_iequal(key, "service"))
      out.service = std::move(value);
    else if (regparse_iequal(key, "scope"))
      out.scope = std::move(value);
  }
  if (out.realm.empty()) return regparse_bad("Bearer challenge without a realm");
  for (char c : out.realm)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return regparse_bad("Bearer realm with a control character or space");
  return out;
}

Result<std::string> parse_token_answer(std::string_view body) {
  if (body.size() > kRegistryMaxBodyBytes) return regparse_bad("token answer too large");
  std::optional<JsonValue> doc = regparse_json(body);
  if (!doc || !doc->is_object()) return regparse_bad("token answer is not a JSON object");
  std::string token = doc->string_or("token", "");
  if (token.empty()) token = doc->string_or("access_token", "");
  if (token.empty()) return regparse_bad("token answer without a token");
  if (token.size() > 16384) return regparse_bad("token too long");
  for (char c : token)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return regparse_bad("token with a control character or space");
  return token;
}

Result<ManifestAnswer> parse_manifest_answer(std::string_view body, std::string_view content_type) {
  if (body.size() > kRegistryMaxBodyBytes) return regparse_bad("manifest too large");
  std::optional<JsonValue> doc = regparse_json(body);
  if (!doc || !doc->is_object()) return regparse_bad("manifest is not a JSON object");
  std::string_view type = regparse_trim(content_type.substr(0, content_type.find(';')));
  std::string media;
  if (type == kMediaOciIndex || type == kMediaDockerList || type == kMediaOciManifest ||
      type == kMediaDockerManifest)
    media = std::string(type);
  else
    media = doc->string_or("mediaType", "");
  if (media == kMediaOciIndex || media == kMediaDockerList) return regparse_index(*doc);
  if (media == kMediaOciManifest || media == kMediaDockerManifest) return regparse_image(*doc);
  if (doc->find("manifests")) return regparse_index(*doc);
  if (doc->find("layers")) return regparse_image(*doc);
  return regparse_bad("neither an image index nor an image manifest");
}

}  // namespace burst
