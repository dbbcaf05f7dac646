#include "backend_conformance/conformance.h"

namespace indelible::conformance {

INSTANTIATE_TEST_SUITE_P(Backends, ConformanceTest,
                         ::testing::Values(Backend{"memory", false}, Backend{"embedded", true},
                                           Backend{"dynamodb", false}),
                         [](const auto& param_info) { return param_info.param.name; });

INSTANTIATE_TEST_SUITE_P(DurableBackends, DurableTest, ::testing::Values(Backend{"embedded", true}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace indelible::conformance
