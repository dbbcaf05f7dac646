// auth::Rule, Grants and RoleBook (src/auth/policy.h): what a rule covers,
// what the built-in roles grant, the everywhere-only rights, the checks a
// consumer group and a read of $all make, and every refusal of a roles file.
#include "auth/policy.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testutil/temp_dir.h"

namespace indelible::auth {
namespace {

Rule RuleOf(std::initializer_list<Right> rights, std::vector<std::string> categories = {},
            std::vector<std::string> prefixes = {}) {
  Rule rule;
  for (Right r : rights) rule.rights |= static_cast<Rights>(r);
  rule.categories = std::move(categories);
  rule.prefixes = std::move(prefixes);
  return rule;
}

Grants GrantsOf(std::vector<Rule> rules) {
  Role role{"test", false, std::move(rules)};
  return Grants::Of({&role});
}

TEST(RuleTest, CoversByCategoryPrefixOrEverywhere) {
  const Rule category = RuleOf({Right::kRead}, {"orders"});
  EXPECT_TRUE(category.Covers("orders"));
  EXPECT_TRUE(category.Covers("orders-1"));
  EXPECT_TRUE(category.Covers("orders/eu-1"));
  EXPECT_FALSE(category.Covers("ordersx-1"));
  EXPECT_FALSE(category.Covers("payments-1"));
  EXPECT_FALSE(category.Covers("x-orders-1"));

  const Rule prefix = RuleOf({Right::kRead}, {}, {"orders-"});
  EXPECT_TRUE(prefix.Covers("orders-1"));
  EXPECT_FALSE(prefix.Covers("orders"));
  EXPECT_FALSE(prefix.Covers("orders/eu"));

  const Rule both = RuleOf({Right::kRead}, {"payments"}, {"orders-"});
  EXPECT_TRUE(both.Covers("payments-1"));
  EXPECT_TRUE(both.Covers("orders-1"));
  EXPECT_FALSE(both.Covers("refunds-1"));

  const Rule everywhere = RuleOf({Right::kRead});
  EXPECT_TRUE(everywhere.everywhere());
  EXPECT_TRUE(everywhere.Covers("anything"));
}

TEST(RuleTest, ReservedAndEmptyNamesAreNeverCovered) {
  for (const Rule& rule : {RuleOf({Right::kRead}), RuleOf({Right::kRead}, {"$audit"}),
                           RuleOf({Right::kRead}, {}, {"$"})}) {
    EXPECT_FALSE(rule.Covers("$audit"));
    EXPECT_FALSE(rule.Covers("$parked-g"));
    EXPECT_FALSE(rule.Covers(""));
  }
}

TEST(GrantsTest, TheBuiltInRoles) {
  const RoleBook book;
  const Grants admin = book.Resolve({"admin"});
  EXPECT_TRUE(admin.admin());
  for (Right right : {Right::kRead, Right::kWrite, Right::kDelete, Right::kSubscribe,
                      Right::kConsumers, Right::kKeys, Right::kMetrics}) {
    EXPECT_TRUE(admin.Allows(right, "$audit"));
    EXPECT_TRUE(admin.AllowsEverywhere(right));
  }

  const auto rights = [&](const std::string& role) {
    const Grants grants = book.Resolve({role});
    std::string out;
    for (Right right : {Right::kRead, Right::kWrite, Right::kDelete, Right::kSubscribe,
                        Right::kConsumers, Right::kKeys, Right::kMetrics}) {
      EXPECT_EQ(grants.Allows(right, "orders-1"), grants.AllowsEverywhere(right)) << role;
      EXPECT_FALSE(grants.Allows(right, "$audit")) << role;
      if (grants.Allows(right, "orders-1")) out += std::string(RightName(right)) + " ";
    }
    EXPECT_FALSE(grants.admin());
    return out;
  };
  EXPECT_EQ(rights("operator"), "read subscribe consumers metrics ");
  EXPECT_EQ(rights("writer"), "read write subscribe ");
  EXPECT_EQ(rights("reader"), "read subscribe ");
  EXPECT_EQ(book.Names(), (std::vector<std::string>{"admin", "operator", "reader", "writer"}));
}

TEST(GrantsTest, UnknownRolesGrantNothingAndRolesAddUp) {
  const RoleBook book;
  const Grants none = book.Resolve({"root", "superuser"});
  EXPECT_FALSE(none.admin());
  EXPECT_FALSE(none.AllowsSomewhere(Right::kRead));
  const Grants both = book.Resolve({"reader", "operator"});
  EXPECT_TRUE(both.AllowsEverywhere(Right::kConsumers));
  EXPECT_FALSE(both.AllowsSomewhere(Right::kWrite));
  EXPECT_FALSE(Grants().AllowsSomewhere(Right::kRead));
}

TEST(GrantsTest, KeysAndMetricsOnlyFromARuleForEveryStream) {
  // A scoped rule naming them (which a roles file refuses) grants them
  // nowhere: they are not about streams.
  const Grants scoped = GrantsOf({RuleOf({Right::kKeys, Right::kMetrics}, {"orders"})});
  EXPECT_FALSE(scoped.AllowsEverywhere(Right::kKeys));
  EXPECT_FALSE(scoped.AllowsEverywhere(Right::kMetrics));
  const Grants open = GrantsOf({RuleOf({Right::kMetrics})});
  EXPECT_TRUE(open.AllowsEverywhere(Right::kMetrics));
  EXPECT_FALSE(open.AllowsEverywhere(Right::kKeys));
}

TEST(GrantsTest, SomewhereAndEverywhere) {
  const Grants grants = GrantsOf({RuleOf({Right::kRead}, {"orders"}), RuleOf({Right::kWrite})});
  EXPECT_TRUE(grants.AllowsSomewhere(Right::kRead));
  EXPECT_FALSE(grants.AllowsEverywhere(Right::kRead));
  EXPECT_TRUE(grants.AllowsEverywhere(Right::kWrite));
  EXPECT_FALSE(grants.AllowsSomewhere(Right::kDelete));
  EXPECT_TRUE(grants.Allows(Right::kRead, "orders-1"));
  EXPECT_FALSE(grants.Allows(Right::kRead, "payments-1"));
  EXPECT_FALSE(grants.Allows(Right::kWrite, "$audit"));
}

TEST(GrantsTest, AllowsAllUnderAPrefix) {
  const Grants category = GrantsOf({RuleOf({Right::kRead}, {"orders"})});
  EXPECT_TRUE(category.AllowsAllUnder(Right::kRead, "orders-"));
  EXPECT_TRUE(category.AllowsAllUnder(Right::kRead, "orders/"));
  EXPECT_TRUE(category.AllowsAllUnder(Right::kRead, "orders-eu-"));
  EXPECT_FALSE(category.AllowsAllUnder(Right::kRead, "orders")) << "'ordersx' starts with it";
  EXPECT_FALSE(category.AllowsAllUnder(Right::kRead, "order"));
  EXPECT_FALSE(category.AllowsAllUnder(Right::kWrite, "orders-"));

  const Grants prefix = GrantsOf({RuleOf({Right::kRead}, {}, {"orders-"})});
  EXPECT_TRUE(prefix.AllowsAllUnder(Right::kRead, "orders-"));
  EXPECT_TRUE(prefix.AllowsAllUnder(Right::kRead, "orders-eu"));
  EXPECT_FALSE(prefix.AllowsAllUnder(Right::kRead, "orders"));
  EXPECT_FALSE(prefix.AllowsAllUnder(Right::kRead, "orders/"));

  const Grants everywhere = GrantsOf({RuleOf({Right::kRead})});
  EXPECT_TRUE(everywhere.AllowsAllUnder(Right::kRead, "x"));
  EXPECT_FALSE(everywhere.AllowsAllUnder(Right::kRead, "$"));
  EXPECT_FALSE(everywhere.AllowsAllUnder(Right::kRead, "$parked-"));
  EXPECT_FALSE(everywhere.AllowsAllUnder(Right::kRead, ""));
  EXPECT_TRUE(Grants::Admin().AllowsAllUnder(Right::kRead, "$"));
}

AllFilter Filter(std::vector<std::string> categories, std::vector<std::string> prefixes = {},
                 std::vector<std::string> types = {}) {
  AllFilter filter;
  filter.categories = std::move(categories);
  filter.stream_prefixes = std::move(prefixes);
  filter.types = std::move(types);
  return filter;
}

TEST(GrantsTest, MayReadAllOfAGroupsFilter) {
  const Grants orders = GrantsOf({RuleOf({Right::kRead, Right::kConsumers}, {"orders"})});
  EXPECT_FALSE(orders.MayReadAllOf(AllFilter()));
  EXPECT_FALSE(orders.MayReadAllOf(Filter({}, {}, {"Placed"}))) << "types select any stream";
  EXPECT_TRUE(orders.MayReadAllOf(Filter({"orders"})));
  EXPECT_FALSE(orders.MayReadAllOf(Filter({"orders", "payments"})));
  EXPECT_TRUE(orders.MayReadAllOf(Filter({}, {"orders-"})));
  EXPECT_TRUE(orders.MayReadAllOf(Filter({}, {"orders-", "orders/"})));
  EXPECT_FALSE(orders.MayReadAllOf(Filter({}, {"orders"})));
  EXPECT_FALSE(orders.MayReadAllOf(Filter({}, {"orders-", "payments-"})));
  // The lists are and-ed: one of them inside what may be read is enough.
  EXPECT_TRUE(orders.MayReadAllOf(Filter({"payments"}, {"orders-"})));
  EXPECT_TRUE(orders.MayReadAllOf(Filter({"orders"}, {"payments-"})));

  // A prefix rule does not cover a category ("orders" and "orders/x" are in it).
  const Grants prefix = GrantsOf({RuleOf({Right::kRead}, {}, {"orders-"})});
  EXPECT_FALSE(prefix.MayReadAllOf(Filter({"orders"})));
  EXPECT_TRUE(prefix.MayReadAllOf(Filter({}, {"orders-1"})));

  // Read only by consumers is not enough.
  const Grants no_read = GrantsOf({RuleOf({Right::kConsumers}, {"orders"})});
  EXPECT_FALSE(no_read.MayReadAllOf(Filter({"orders"})));

  const Grants reader = RoleBook().Resolve({"reader"});
  EXPECT_TRUE(reader.MayReadAllOf(AllFilter()));
  EXPECT_TRUE(reader.MayReadAllOf(Filter({"payments"})));
  // '$' streams: admins only, even for a reader of everything.
  EXPECT_FALSE(reader.MayReadAllOf(Filter({}, {"$parked-"})));
  EXPECT_FALSE(reader.MayReadAllOf(Filter({"$audit"})));
  EXPECT_FALSE(reader.MayReadAllOf(Filter({}, {""})));
  EXPECT_TRUE(Grants::Admin().MayReadAllOf(Filter({}, {"$parked-"})));
}

TEST(GrantsTest, NarrowReadFilter) {
  const auto narrowed = [](const Grants& grants, AllFilter filter) {
    grants.NarrowReadFilter(filter);
    return filter;
  };
  const Grants categories = GrantsOf({RuleOf({Right::kRead}, {"orders"}),
                                      RuleOf({Right::kRead, Right::kWrite}, {"refunds"}),
                                      RuleOf({Right::kWrite}, {"payments"})});
  AllFilter f = narrowed(categories, AllFilter());
  EXPECT_EQ(f.categories, (std::vector<std::string>{"orders", "refunds"}));
  EXPECT_TRUE(f.stream_prefixes.empty());

  const Grants prefixes = GrantsOf({RuleOf({Right::kRead}, {}, {"orders-", "refunds-"})});
  f = narrowed(prefixes, AllFilter());
  EXPECT_EQ(f.stream_prefixes, (std::vector<std::string>{"orders-", "refunds-"}));
  EXPECT_TRUE(f.categories.empty());

  // A mix cannot be said as one filter: left to the per-event check.
  const Grants mixed =
      GrantsOf({RuleOf({Right::kRead}, {"orders"}), RuleOf({Right::kRead}, {}, {"refunds-"})});
  EXPECT_TRUE(narrowed(mixed, AllFilter()).empty());
  // A reader of everything, and a caller's own filter: unchanged.
  EXPECT_TRUE(narrowed(RoleBook().Resolve({"reader"}), AllFilter()).empty());
  f = narrowed(categories, Filter({"payments"}));
  EXPECT_EQ(f.categories, (std::vector<std::string>{"payments"}));
  // A filter of types only says nothing of streams: narrowed too.
  f = narrowed(categories, Filter({}, {}, {"Placed"}));
  EXPECT_EQ(f.categories, (std::vector<std::string>{"orders", "refunds"}));
  EXPECT_EQ(f.types, (std::vector<std::string>{"Placed"}));
  EXPECT_TRUE(narrowed(Grants::Admin(), AllFilter()).empty());
}

TEST(GrantsTest, ToJsonNamesTheRules) {
  const Grants grants = GrantsOf({RuleOf({Right::kRead, Right::kWrite}, {"orders"}, {"x-"})});
  EXPECT_EQ(grants.ToJson(),
            R"({"admin":false,"rules":[{"allow":["read","write"],"categories":["orders"],)"
            R"("prefixes":["x-"]}]})");
}

TEST(RightTest, NamesRoundTrip) {
  for (Right right : {Right::kRead, Right::kWrite, Right::kDelete, Right::kSubscribe,
                      Right::kConsumers, Right::kKeys, Right::kMetrics}) {
    auto parsed = ParseRight(RightName(right), "f");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, right);
  }
  auto bad = ParseRight("admin", "allow");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(bad.status().message().find("'admin' is not a right"), std::string::npos);
}

class RolesFileTest : public ::testing::Test {
 protected:
  // The file holding `text`, loaded.
  Result<RoleBook> Load(const std::string& text) {
    std::ofstream(Path()) << text;
    return RoleBook::Load(Path());
  }
  std::string Path() const { return tmp_.Sub("roles.json"); }

  // Loading `text` fails naming the file and `problem`.
  void Refused(const std::string& text, const std::string& problem) {
    auto loaded = Load(text);
    ASSERT_FALSE(loaded.ok()) << text;
    EXPECT_EQ(loaded.status().code(), ErrorCode::kInvalid) << text;
    const std::string message = loaded.status().message();
    EXPECT_NE(message.find(Path()), std::string::npos) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  }

  testutil::TempDir tmp_;
};

TEST_F(RolesFileTest, UserDefinedRolesAndCertificates) {
  auto book = Load(R"({"roles": {
      "orders-writer": [{"allow": ["write", "read"], "categories": ["orders"]}],
      "analyst": [{"allow": ["read", "subscribe"], "prefixes": ["orders-"]}, {"allow": ["metrics"]}]},
    "certificates": {"CN=svc,O=Acme": ["orders-writer", "reader"]}})");
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  EXPECT_TRUE(book->Has("reader"));
  const Grants writer = book->Resolve({"orders-writer"});
  EXPECT_TRUE(writer.Allows(Right::kWrite, "orders-1"));
  EXPECT_FALSE(writer.Allows(Right::kWrite, "payments-1"));
  EXPECT_FALSE(writer.Allows(Right::kSubscribe, "orders-1"));
  const Grants analyst = book->Resolve({"analyst"});
  EXPECT_TRUE(analyst.AllowsEverywhere(Right::kMetrics));
  EXPECT_TRUE(analyst.Allows(Right::kSubscribe, "orders-1"));
  EXPECT_FALSE(analyst.Allows(Right::kRead, "orders"));
  ASSERT_NE(book->CertificateRoles("CN=svc,O=Acme"), nullptr);
  EXPECT_EQ(*book->CertificateRoles("CN=svc,O=Acme"),
            (std::vector<std::string>{"orders-writer", "reader"}));
  EXPECT_EQ(book->CertificateRoles("CN=other"), nullptr);
  EXPECT_TRUE(RoleBook::Load("").ok()) << "no file: the built-in roles";
}

TEST_F(RolesFileTest, EachMistakeIsNamed) {
  auto missing = RoleBook::Load(tmp_.Sub("nope.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(tmp_.Sub("nope.json")), std::string::npos);

  Refused("{oops", "is not a JSON object");
  Refused("[]", "is not a JSON object");
  Refused(R"({"rolez": {}})", "unknown key \"rolez\"");
  Refused(R"({"roles": []})", "\"roles\" must be an object");
  Refused(R"({"roles": {"admin": [{"allow": ["read"]}]}})", "role 'admin' is built in");
  Refused(R"({"roles": {"reader": [{"allow": ["read"]}]}})", "role 'reader' is built in");
  Refused(R"({"roles": {"": [{"allow": ["read"]}]}})", "1 to 64 bytes");
  Refused(R"({"roles": {")" + std::string(65, 'r') + R"(": [{"allow": ["read"]}]}})",
          "1 to 64 bytes");
  Refused(R"({"roles": {"r": {"allow": ["read"]}}})", "must be an array of rules");
  Refused(R"({"roles": {"r": ["read"]}})", "a rule must be an object");
  Refused(R"({"roles": {"r": [{"allow": ["read"], "streams": ["x"]}]}})",
          "unknown key \"streams\"");
  Refused(R"({"roles": {"r": [{"categories": ["x"]}]}})", "\"allow\" must be a non-empty array");
  Refused(R"({"roles": {"r": [{"allow": []}]}})", "\"allow\" must be a non-empty array");
  Refused(R"({"roles": {"r": [{"allow": [7]}]}})", "a right must be a string");
  Refused(R"({"roles": {"r": [{"allow": ["admin"]}]}})", "role 'r': 'admin' is not a right");
  Refused(R"({"roles": {"r": [{"allow": ["keys"], "categories": ["orders"]}]}})",
          "keys and metrics are not about streams");
  Refused(R"({"roles": {"r": [{"allow": ["read", "metrics"], "prefixes": ["orders-"]}]}})",
          "keys and metrics are not about streams");
  Refused(R"({"roles": {"r": [{"allow": ["read"], "prefixes": ["$parked-"]}]}})",
          "'$' streams are the admin role's alone");
  Refused(R"({"roles": {"r": [{"allow": ["read"], "categories": ["$audit"]}]}})",
          "'$' streams are the admin role's alone");
  Refused(R"({"roles": {"r": [{"allow": ["read"], "categories": "orders"}]}})",
          "\"categories\" must be an array of strings");
  Refused(R"({"roles": {"r": [{"allow": ["read"], "prefixes": [""]}]}})",
          "\"prefixes\" must hold non-empty strings");
  Refused(R"({"certificates": []})", "\"certificates\" must be an object");
  Refused(R"({"certificates": {"CN=x": "reader"}})", "certificate 'CN=x' must map to an array");
  Refused(R"({"certificates": {"CN=x": ["root"]}})", "certificate 'CN=x': no role 'root'");
}

}  // namespace
}  // namespace indelible::auth
