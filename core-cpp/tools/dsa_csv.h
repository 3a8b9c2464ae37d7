// Reads a MiniMalloc-format CSV (id,lower,upper,size[,alignment]; a column
// named `end` instead of `upper` is inclusive) for the native tools. The core
// itself reads no files: this lives beside the tools only.
#ifndef TENSORPLAN_TOOLS_DSA_CSV_H
#define TENSORPLAN_TOOLS_DSA_CSV_H

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "placement/placement.h"

namespace tp_tools {

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    cells.push_back(cell);
  }
  return cells;
}

inline bool parse_integer(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return false;
  *out = value;
  return true;
}

// Returns "" on success, else a message naming the line and column.
inline std::string read_dsa_csv(const std::string& path, std::vector<tp::PlaceBuffer>* out) {
  std::ifstream file(path);
  if (!file) return path + ": cannot open";
  std::string line;
  if (!std::getline(file, line)) return path + ": empty file";
  const std::vector<std::string> header = split_csv_line(line);
  int lower = -1, upper = -1, size = -1, alignment = -1;
  bool inclusive = false;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "lower") lower = static_cast<int>(i);
    if (header[i] == "upper") upper = static_cast<int>(i);
    if (header[i] == "end") {
      upper = static_cast<int>(i);
      inclusive = true;
    }
    if (header[i] == "size") size = static_cast<int>(i);
    if (header[i] == "alignment") alignment = static_cast<int>(i);
  }
  if (lower < 0 || upper < 0 || size < 0) return path + ": header needs lower, upper (or end) and size";
  int line_number = 1;
  while (std::getline(file, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_csv_line(line);
    tp::PlaceBuffer b;
    const std::string where = path + ":" + std::to_string(line_number);
    auto cell = [&](int column, int64_t* value) {
      return column >= 0 && static_cast<size_t>(column) < cells.size() && parse_integer(cells[static_cast<size_t>(column)], value);
    };
    if (!cell(lower, &b.lower)) return where + ": bad lower";
    if (!cell(upper, &b.upper)) return where + ": bad upper";
    if (!cell(size, &b.size)) return where + ": bad size";
    if (inclusive) b.upper += 1;
    if (alignment >= 0 && !cell(alignment, &b.alignment)) return where + ": bad alignment";
    out->push_back(b);
  }
  return "";
}

}  // namespace tp_tools

#endif  // TENSORPLAN_TOOLS_DSA_CSV_H
