// A scenario's parallel layout and precision as typed fields, the same in every machine-readable
// output (run, compare, plan, sweep): JSON objects and flattened CSV columns, one value each.
//   layout: tp, pp, dp (resolved: world / (tp·pp·cp) when the scenario derives it), ep, cp,
//     cp_algorithm, sequence_parallel, zero, schedule, virtual_stages, micro_batch, global_batch,
//     seq_len, recompute (none, full, selective, ops) with recompute_ops, comm_sms, stage_layers
//     (empty: balanced), account_embedding, account_head;
//   precision: one word per tensor class (gemm, attention, ..., optimizer), as spec::describe
//     names them.
#pragma once

#include <string>
#include <vector>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/spec/scenario.hpp"

namespace stepsim::report {

// Writes `key` and the layout's object.
void layout_json(format::JsonWriter& j, const spec::ScenarioSpec& s, const char* key = "layout");
// Writes the key "precision" and its object.
void precision_json(format::JsonWriter& j, const spec::PrecisionPolicy& p);

// The layout flattened: these columns, in this order (recompute_ops and stage_layers as lists
// joined by spaces, one cell each).
const std::vector<std::string>& layout_columns();
void layout_csv(format::CsvTable& t, const spec::ScenarioSpec& s);

}  // namespace stepsim::report
