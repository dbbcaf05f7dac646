#include "aws/sigv4.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

namespace indelible::aws {
namespace {

std::string Hex(const unsigned char* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// Undoes percent-encoding (and '+' is a plain plus: AWS signs the query as
// RFC 3986 has it, not as HTML forms do).
std::string UriDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Each parameter decoded, then encoded the one canonical way, and sorted by
// name, then value.
std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    const auto equals = param.find('=');
    const auto name = param.substr(0, equals);
    const auto value =
        equals == std::string_view::npos ? std::string_view() : param.substr(equals + 1);
    params.emplace_back(UriEncode(UriDecode(name), false), UriEncode(UriDecode(value), false));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out.append(name).append(1, '=').append(value);
  }
  return out;
}

// Leading and trailing blanks dropped, inner runs of blanks made one space.
std::string CanonicalValue(std::string_view value) {
  std::string out;
  bool blank = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  return Hex(digest, size);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &size);
  return std::string(reinterpret_cast<const char*>(mac), size);
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[17];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::vector<Header> SigningHeaders(const Credentials& credentials, std::string_view amz_date) {
  std::vector<Header> headers{{"x-amz-date", std::string(amz_date)}};
  if (!credentials.session_token.empty())
    headers.emplace_back("x-amz-security-token", credentials.session_token);
  return headers;
}

Signature Sign(const SigningRequest& request, const Credentials& credentials,
               std::string_view region, std::string_view service, std::string_view amz_date) {
  // Names lowercased; a header given twice signs as one, values joined by
  // commas in the order given.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, fresh] = headers.emplace(lower, CanonicalValue(value));
    if (!fresh) it->second += ',' + CanonicalValue(value);
  }
  Signature s;
  std::string canonical_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers.append(name).append(1, ':').append(value).append(1, '\n');
    if (!s.signed_headers.empty()) s.signed_headers += ';';
    s.signed_headers += name;
  }
  s.canonical_request = fmt::format("{}\n{}\n{}\n{}\n{}\n{}", request.method,
                                    UriEncode(request.path, true), CanonicalQuery(request.query),
                                    canonical_headers, s.signed_headers, Sha256Hex(request.body));
  const std::string_view date = amz_date.substr(0, 8);
  const std::string scope = fmt::format("{}/{}/{}/aws4_request", date, region, service);
  s.string_to_sign =
      fmt::format("AWS4-HMAC-SHA256\n{}\n{}\n{}", amz_date, scope, Sha256Hex(s.canonical_request));
  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  const std::string mac = HmacSha256(key, s.string_to_sign);
  s.signature = Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
  s.authorization = fmt::format("AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
                                credentials.access_key_id, scope, s.signed_headers, s.signature);
  return s;
}

}  // namespace indelible::aws
