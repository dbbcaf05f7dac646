// POST /scavenge: removes for good the bytes of the events the streams'
// retention hides (docs/HTTP.md, "Scavenging"; Store::Scavenge). An act on
// the whole store: the admin role's, on $audit as store.scavenge with the
// report as its detail. DELETE /subjects/{subject}: crypto-shredding
// (Store::ShredSubject), admin too, on $audit as subject.shred.
#include <boost/asio/post.hpp>
#include <chrono>

#include "api/scavenge.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

void Scavenge(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (Status s = api::ScavengeRequestFromJson(exchange->request().body()); !s.ok())
    return exchange->RespondError(s);
  // Seconds to minutes (it ends with a full compaction): on the blocking
  // pool, which holds a thread per call that waits on the store. Two at
  // once run one after the other (the engine serializes them).
  boost::asio::post(context.blocking, [&context, exchange] {
    RunGuarded(*exchange, [&] {
      const auto started = std::chrono::steady_clock::now();
      auto report = context.store.Scavenge(nullptr);
      if (!report.ok()) return exchange->RespondError(report.status());
      const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
      std::string body = api::ScavengeReportToJson(*report, took);
      exchange->SetAuditDetail(body);
      exchange->RespondJson(http::status::ok, std::move(body));
    });
  });
}

void Shred(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  // Record deletes (a few requests): off the I/O thread, as a delete.
  boost::asio::post(context.blocking, [&context, exchange] {
    RunGuarded(*exchange, [&] {
      const std::string& subject = exchange->params()[0];
      auto report = context.store.ShredSubject(subject);
      if (!report.ok()) return exchange->RespondError(report.status());
      std::string body = api::ShredReportToJson(*report);
      exchange->SetAuditDetail(body);
      exchange->RespondJson(http::status::ok, std::move(body));
    });
  });
}

}  // namespace

void AddScavengeRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::post, "/scavenge",
             Access::Admin("store.scavenge",
                           "a scavenge removes the bytes of the events every stream's retention "
                           "hides, for good"),
             [&context](std::shared_ptr<Exchange> e) { Scavenge(context, std::move(e)); });
  router.Add(http::verb::delete_, "/subjects/{}",
             Access::Admin("subject.shred",
                           "shredding a subject deletes its keys, so every event of the subject "
                           "reads as redacted, for good"),
             [&context](std::shared_ptr<Exchange> e) { Shred(context, std::move(e)); });
}

}  // namespace indelible::server
