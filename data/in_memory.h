#pragma once
// InMemDataset (Burn's InMemDataset): items kept in a vector, made from items, from a CSV file
// (each row through a parser) or from a JSON-rows file (one JSON object per line, each turned
// into an Item by nlohmann-json's from_json for Item). Copies share the items.
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/csv.h"
#include "data/dataset.h"
#include "ir/error.h"

namespace ember::data {

template <class Item>
class InMemDataset : public Dataset<Item> {
 public:
  explicit InMemDataset(std::vector<Item> items)
      : items_(std::make_shared<const std::vector<Item>>(std::move(items))) {}

  // One item per data row: parse(row). An exception of parse (an ember::Error that names no
  // file, or any std::exception) is rethrown as an ember::Error naming the file and the item.
  static InMemDataset from_csv(const std::string& path,
                               const std::function<Item(const CsvRow&)>& parse,
                               const CsvOptions& options = {}) {
    CsvTable table = read_csv(path, options);
    std::vector<Item> items;
    items.reserve(table.rows.size());
    for (size_t i = 0; i < table.rows.size(); ++i) {
      try {
        items.push_back(parse(CsvRow(table, i)));
      } catch (const std::exception& e) {
        if (dynamic_cast<const Error*>(&e) != nullptr &&
            std::string(e.what()).find(path) != std::string::npos) {
          throw;
        }
        throw Error("InMemDataset::from_csv: " + path + ": item " + std::to_string(i) + ": " +
                    e.what());
      }
    }
    return InMemDataset(std::move(items));
  }

  // One item per non-blank line. Throws ember::Error naming the file and line when a line is
  // not JSON or does not convert to an Item.
  static InMemDataset from_json_rows(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("InMemDataset::from_json_rows: cannot open " + path);
    std::vector<Item> items;
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        items.push_back(nlohmann::json::parse(line).get<Item>());
      } catch (const std::exception& e) {  // nlohmann's parse and type errors, or the Item's
        throw Error("InMemDataset::from_json_rows: " + path + ": line " + std::to_string(number) +
                    " (item " + std::to_string(items.size()) + "): " + e.what());
      }
    }
    if (in.bad()) throw Error("InMemDataset::from_json_rows: error reading " + path);
    return InMemDataset(std::move(items));
  }

  std::optional<Item> get(size_t index) const override {
    if (index >= items_->size()) return std::nullopt;
    return (*items_)[index];
  }
  size_t len() const override { return items_->size(); }

 private:
  std::shared_ptr<const std::vector<Item>> items_;
};

}  // namespace ember::data
