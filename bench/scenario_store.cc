#include "bench/scenario_store.h"

#include <fmt/format.h>

#include <cstdio>
#include <random>

#include "indelible/config.h"
#if INDELIBLE_HAVE_DYNAMODB
#include "aws/client.h"
#include "aws/credentials.h"
#include "storage/dynamodb/store_url.h"
#endif

namespace indelible::bench {
namespace {

std::string RandomPrefix(std::string_view head) {
  std::random_device device;
  return fmt::format("{}_{:08x}_", head, device());
}

// Deletes the store's tables; not_found ones are fine.
Status DropTables(const std::string& url, const std::string& prefix) {
#if !INDELIBLE_HAVE_DYNAMODB
  (void)url;
  (void)prefix;
  return Status::Invalid("store", INDELIBLE_NO_DYNAMODB);
#else
  // The tables a DynamoDB store of prefix P makes (include/indelible/store.h).
  constexpr std::string_view kTables[] = {"events", "all", "checkpoints"};
  auto parsed = dynamodb::ParseStoreUrl(url);
  if (!parsed.ok()) return parsed.status();
  aws::ChainOptions chain;
  chain.region = parsed->region;
  auto credentials = aws::DefaultCredentialsChain(chain);
  if (!credentials.ok()) return credentials.status();
  auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
  if (!client.ok()) return client.status();
  for (std::string_view table : kTables) {
    const std::string name = prefix + std::string(table);
    aws::Reply reply = (*client)->Call("DeleteTable", {{"TableName", name}});
    if (!reply.ok() && reply.error_type != "ResourceNotFoundException")
      return Status::Unavailable(
          fmt::format("deleting table {}: {}", name, reply.status.ToString()));
  }
  return Status::Ok();
#endif
}

}  // namespace

std::string WithTablePrefix(std::string_view url, std::string_view prefix) {
  const std::size_t query = url.find('?');
  std::string out(url.substr(0, query));
  char separator = '?';
  if (query != std::string_view::npos) {
    std::string_view rest = url.substr(query + 1);
    while (!rest.empty()) {
      const std::size_t amp = rest.find('&');
      const std::string_view param = rest.substr(0, amp);
      if (!param.empty() && !param.starts_with("prefix=")) {
        out += separator;
        out += param;
        separator = '&';
      }
      if (amp == std::string_view::npos) break;
      rest.remove_prefix(amp + 1);
    }
  }
  out += separator;
  out += "prefix=";
  out += prefix;
  return out;
}

std::string ServerOf(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  url = url.substr(0, url.find('?'));
  if (url.ends_with('/')) url.remove_suffix(1);
  return std::string(url);
}

Result<std::unique_ptr<ScenarioStore>> ScenarioStore::Open(const Context& context,
                                                           std::string_view scenario,
                                                           std::string_view prefix_head,
                                                           std::string_view url_extra) {
  std::unique_ptr<ScenarioStore> out(new ScenarioStore());
  const Options& options = context.options();
  out->keep_ = options.keep;
  if (options.store.empty()) {
    out->durability_ = context.durability_name();
    out->filesystem_ = context.filesystem();
    out->folder_ = std::make_unique<ScratchFolder>(context, scenario);
    if (!out->folder_->error().empty()) return Status::Unavailable(out->folder_->error());
    auto store = OpenStore(context, out->folder_->path());
    if (!store.ok()) return store.status();
    out->store_ = std::move(*store);
    return out;
  }
  out->remote_ = true;
  out->durability_ = "dynamodb";
  out->prefix_ = RandomPrefix(prefix_head);
  out->url_ = WithTablePrefix(options.store, out->prefix_);
  out->server_ = ServerOf(options.store);
  auto store = Store::Open(out->url_ + std::string(url_extra));
  if (!store.ok()) {
    // It may have made some of its tables before failing.
    if (!out->keep_) (void)DropTables(out->url_, out->prefix_);
    return store.status();
  }
  out->store_ = std::move(*store);
  return out;
}

Status ScenarioStore::Close() {
  store_.reset();
  Status dropped;
  if (remote_ && !url_.empty()) {
    if (keep_)
      std::fputs(fmt::format("# kept the tables {}*\n", prefix_).c_str(), stderr);
    else
      dropped = DropTables(url_, prefix_);
    url_.clear();
  }
  folder_.reset();
  return dropped;
}

ScenarioStore::~ScenarioStore() {
  if (Status s = Close(); !s.ok()) std::fputs(fmt::format("# {}\n", s.ToString()).c_str(), stderr);
}

void ScenarioStore::AddConditions(Line& line) const {
  line.Add("durability", durability_);
  if (remote_) {
    line.Add("transport", "dynamodb").Add("server", server_).Add("table_prefix", prefix_);
  } else {
    line.Add("transport", "in-process").Add("fs", filesystem_);
  }
}

}  // namespace indelible::bench
