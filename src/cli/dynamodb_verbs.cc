// dynamodb: deploying a DynamoDB store (docs/DYNAMODB.md, "Deploying the
// tables").
//
//   indelible dynamodb create-tables URL [--no-pitr]
//   indelible dynamodb policy URL [--account ID] [--create-tables] [--actions]
//
// create-tables makes (or completes) the tables of the store at URL as the
// store would, and turns point-in-time recovery on; policy prints the
// least-privilege IAM policy for them (storage/dynamodb/iam_policy.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <boost/json.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "indelible/config.h"
#if INDELIBLE_HAVE_DYNAMODB
#include "storage/dynamodb/dynamodb_store.h"
#include "storage/dynamodb/iam_policy.h"
#endif

namespace indelible::cli {
namespace {

struct DynamoDbArgs {
  std::string url;
  bool no_pitr = false;
  std::string account = "*";
  bool create_tables = false;
  bool actions = false;
};

#if INDELIBLE_HAVE_DYNAMODB
namespace json = boost::json;

const char* PitrName(dynamodb::Pitr pitr) {
  switch (pitr) {
    case dynamodb::Pitr::kNotAsked:
      return "not_asked";
    case dynamodb::Pitr::kAlreadyOn:
      return "on";
    case dynamodb::Pitr::kTurnedOn:
      return "turned_on";
    case dynamodb::Pitr::kNotSupported:
      return "not_supported";
  }
  return "";
}

// One line a table: what it found and what it did.
std::string Describe(const dynamodb::TableReport& report) {
  std::string line = report.table + ": ";
  const dynamodb::TableChanges& c = report.changes;
  if (c.created) {
    line += "created";
  } else if (c.any()) {
    std::vector<std::string> done;
    if (c.stream_turned_on) done.emplace_back("change stream turned on");
    if (c.index_added) done.emplace_back("listing index added (DynamoDB builds it now)");
    if (c.ttl_turned_on) done.emplace_back("TTL turned on");
    line += "completed: " + fmt::format("{}", fmt::join(done, ", "));
  } else {
    line += "exists as needed, unchanged";
  }
  switch (report.pitr) {
    case dynamodb::Pitr::kNotAsked:
      return line + "; point-in-time recovery: not asked (--no-pitr)";
    case dynamodb::Pitr::kAlreadyOn:
      return line + "; point-in-time recovery: on already";
    case dynamodb::Pitr::kTurnedOn:
      return line + "; point-in-time recovery: turned on";
    case dynamodb::Pitr::kNotSupported:
      return line +
             "; point-in-time recovery: not supported by this endpoint (DynamoDB Local and "
             "dynalite keep no backups)";
  }
  return line;
}

int CreateTables(const Cli& cli, const DynamoDbArgs& args) {
  dynamodb::CreateTablesOptions options;
  options.pitr = !args.no_pitr;
  bool changed = false;
  options.each = [&](const dynamodb::TableReport& report) {
    changed |= report.changes.any() || report.pitr == dynamodb::Pitr::kTurnedOn;
    if (cli.json) {
      const dynamodb::TableChanges& c = report.changes;
      std::printf("%s\n", json::serialize(json::object{{"table", report.table},
                                                       {"created", c.created},
                                                       {"stream_turned_on", c.stream_turned_on},
                                                       {"index_added", c.index_added},
                                                       {"ttl_turned_on", c.ttl_turned_on},
                                                       {"pitr", PitrName(report.pitr)}})
                              .c_str());
    } else {
      std::printf("%s\n", Describe(report).c_str());
    }
    std::fflush(stdout);
  };
  auto reports = dynamodb::CreateDynamoDbTables(args.url, options);
  if (!reports.ok()) return cli.Fail(reports.status());
  if (cli.json) {
    std::printf("{\"ok\":true,\"changed\":%s}\n", changed ? "true" : "false");
  } else if (changed) {
    std::printf("done: the %zu tables are ready\n", reports->size());
  } else {
    std::printf("nothing to do: the %zu tables were ready\n", reports->size());
  }
  return 0;
}

int Policy(const Cli& cli, const DynamoDbArgs& args) {
  if (args.actions) {
    std::fputs(dynamodb::PrettyJson(dynamodb::IamActionsJson()).c_str(), stdout);
    return 0;
  }
  auto url = dynamodb::ParseStoreUrl(args.url);
  if (!url.ok()) return cli.Fail(url.status());
  const bool digits = args.account.size() == 12 &&
                      args.account.find_first_not_of("0123456789") == std::string::npos;
  if (!digits && args.account != "*")
    return cli.Fail(Status::Invalid(
        "account",
        fmt::format("--account {} is not an AWS account id (12 digits) or *", args.account)));
  dynamodb::PolicyOptions options;
  options.account = args.account;
  options.admin = args.create_tables || url->create_tables;
  std::fputs(dynamodb::PrettyJson(dynamodb::PolicyDocument(*url, options)).c_str(), stdout);
  return 0;
}
#endif

}  // namespace

void AddDynamoDbVerbs(CLI::App& app, Cli& cli) {
  auto args = std::make_shared<DynamoDbArgs>();
  CLI::App* dynamodb = app.add_subcommand(
      "dynamodb", "deploy a DynamoDB store: its tables, its IAM policy (docs/DYNAMODB.md)");
  dynamodb->require_subcommand(1);
  CLI::App* create = dynamodb->add_subcommand(
      "create-tables",
      "make the tables of the store at URL as the store would, or complete them (change stream, "
      "listing index, TTL), and turn point-in-time recovery on; idempotent");
  create->add_option("url", args->url, "the store: dynamodb://HOST?region=R&prefix=P")->required();
  create->add_flag("--no-pitr", args->no_pitr, "leave point-in-time recovery as it is");
  CLI::App* policy = dynamodb->add_subcommand(
      "policy",
      "print the least-privilege IAM policy (JSON) for the tables of the store at URL: what a "
      "server with create_tables=0 sends, plus what makes tables with create_tables=1 (the "
      "default) or --create-tables");
  policy->add_option("url", args->url, "the store: dynamodb://HOST?region=R&prefix=P");
  policy->add_option("--account", args->account, "the AWS account id in the ARNs (default *)");
  policy->add_flag("--create-tables", args->create_tables,
                   "include what create-tables sends (CreateTable, UpdateTable, ...)");
  policy->add_flag("--actions", args->actions,
                   "print the action lists instead (deploy/aws/iam-actions.json), for no URL");
  for (CLI::App* verb : {create, policy}) {
    const bool creating = verb == create;
    verb->callback([&cli, args, creating] {
      cli.run = [&cli, args, creating]() -> int {
#if !INDELIBLE_HAVE_DYNAMODB
        (void)creating;
        return cli.Fail(Status::Invalid("url", INDELIBLE_NO_DYNAMODB));
#else
        if (!creating && !args->actions && args->url.empty())
          return cli.Fail(Status::Invalid("url", "policy needs the store's dynamodb:// URL"));
        return creating ? CreateTables(cli, *args) : Policy(cli, *args);
#endif
      };
    });
  }
}

}  // namespace indelible::cli
