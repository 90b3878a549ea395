#pragma once
/// Umbrella header: everything libtpnet offers.

#include "tpnet/collective.hpp"
#include "tpnet/decode.hpp"
#include "tpnet/engine.hpp"
#include "tpnet/error.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/link.hpp"
#include "tpnet/model.hpp"
#include "tpnet/model_catalog.hpp"
#include "tpnet/prefill.hpp"
#include "tpnet/quantity.hpp"
#include "tpnet/traffic.hpp"
#include "tpnet/units.hpp"
