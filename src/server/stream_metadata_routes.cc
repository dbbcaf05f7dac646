// GET and PUT /streams/{stream}/metadata: a stream's metadata, its
// retention settings and custom keys (docs/HTTP.md, "Stream metadata";
// stream_metadata.h). Writing it needs the delete right, as a delete does:
// retention hides events from every read at once.
#include <boost/asio/post.hpp>

#include "api/stream_metadata.h"
#include "api/wire.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

void Read(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  auto respond = [&context, exchange] {
    RunGuarded(*exchange, [&] {
      const std::string& stream = exchange->params()[0];
      auto stored = context.store.ReadStreamMetadata(stream);
      if (!stored.ok()) return exchange->RespondError(stored.status());
      Response response(http::status::ok, exchange->request().version());
      response.set(http::field::content_type, "application/json");
      // Never written: no version to match, so no ETag (If-None-Match: *
      // is the expectation of a first write).
      if (stored->version) response.set(http::field::etag, api::ETagFor(*stored->version));
      response.body() = api::StoredStreamMetadataToJson(stream, *stored);
      exchange->Respond(std::move(response));
    });
  };
  // As /head and /state: a local point read costs less than the hop to the
  // read pool.
  if (context.store.traits().local_reads) return respond();
  boost::asio::post(context.reads, respond);
}

void Write(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto expected = ExpectedFromHeaders(exchange->request());
  if (!expected.ok()) return exchange->RespondError(expected.status());
  // Refused here, naming the key, before anything is written.
  auto metadata = StreamMetadataFromJson(exchange->request().body());
  if (!metadata.ok()) return exchange->RespondError(metadata.status());
  // $audit records the retention set (what hides events), not the custom
  // keys, which may be large and say nothing about what is read.
  StreamMetadata retention = *metadata;
  retention.custom = "{}";
  exchange->SetAuditDetail(StreamMetadataToJson(retention));
  // A commit to the metadata stream: off the I/O thread, as a delete.
  boost::asio::post(context.blocking, [&context, exchange, expected = *expected,
                                       metadata = std::move(*metadata)] {
    RunGuarded(*exchange, [&] {
      const std::string& stream = exchange->params()[0];
      auto version = context.store.WriteStreamMetadata(stream, metadata, expected);
      if (!version.ok()) return RespondStoreError(*exchange, version.status());
      Response response(http::status::ok, exchange->request().version());
      response.set(http::field::content_type, "application/json");
      response.set(http::field::etag, api::ETagFor(*version));
      response.body() = api::StreamMetadataWrittenToJson(stream, *version);
      exchange->Respond(std::move(response));
    });
  });
}

}  // namespace

void AddMetadataRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/streams/{}/metadata", Access::OnStream(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { Read(context, e); });
  router.Add(http::verb::put, "/streams/{}/metadata",
             Access::OnStream(auth::Right::kDelete, "stream.metadata",
                              "writing a stream's metadata needs the delete right, as its "
                              "retention settings (maxAge, maxCount, truncateBefore) hide the "
                              "stream's events from every read"),
             [&context](std::shared_ptr<Exchange> e) { Write(context, std::move(e)); });
}

}  // namespace indelible::server
