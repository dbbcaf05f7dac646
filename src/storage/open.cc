// Store::Open: the backend a URL names. In a target of its own, so that the
// backends can build on the Store interface and the rules of decide.h
// without a cycle.
#include <fmt/format.h>

#include "indelible/config.h"
#include "indelible/store.h"
#include "shredding/aead.h"
#include "shredding/shredding_store.h"
#include "storage/embedded/embedded_store.h"
#include "storage/memory/memory_store.h"
#include "store/retention_store.h"
#if INDELIBLE_HAVE_DYNAMODB
#include "storage/dynamodb/dynamodb_store.h"
#endif

namespace indelible {

namespace {

Result<std::unique_ptr<Store>> OpenBackend(std::string_view url, const StoreOptions& options) {
  if (url == "memory:" || url == "memory://") return storage::OpenMemoryStore(options);
  if (auto path = storage::EmbeddedFolderOfUrl(url)) {
    if (path->empty()) return Status::Invalid("url", "file: URL needs a path, e.g. file:./data");
    return storage::OpenEmbeddedStore(*path, options);
  }
  if (url.starts_with("dynamodb:")) {
#if INDELIBLE_HAVE_DYNAMODB
    return dynamodb::OpenDynamoDbStore(url, options);
#else
    return Status::Invalid("url", INDELIBLE_NO_DYNAMODB);
#endif
  }
  return Status::Invalid("url", fmt::format("unknown store URL '{}': use file:PATH (embedded), "
                                            "memory: or dynamodb://HOST[:PORT]?region=...",
                                            url));
}

}  // namespace

// Every store a URL opens seals and opens the events of subjects
// (shredding/shredding_store.h) and applies the streams' retention on its
// reads (store/retention_store.h).
Result<std::unique_ptr<Store>> Store::Open(std::string_view url, const StoreOptions& options) {
  for (const std::string& key : options.master_keys)
    if (key.size() != shredding::kKeyBytes)
      return Status::Invalid("master key", fmt::format("a master key is {} bytes, not {}",
                                                       shredding::kKeyBytes, key.size()));
  auto backend = OpenBackend(url, options);
  if (!backend.ok()) return backend;
  return store::RetentionStore::Wrap(
      std::make_unique<shredding::ShreddingStore>(std::move(*backend), options), options);
}

}  // namespace indelible
