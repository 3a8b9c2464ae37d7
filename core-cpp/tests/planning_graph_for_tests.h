// Shared by the graph-planning tests: a Graph checked and resolved into a
// PlanningGraph, failing the current test (not aborting) when it is invalid.
#ifndef TENSORPLAN_TESTS_PLANNING_GRAPH_FOR_TESTS_H
#define TENSORPLAN_TESTS_PLANNING_GRAPH_FOR_TESTS_H

#include <gtest/gtest.h>

#include "graph/graph_validate.h"

inline tp::PlanningGraph planning(const tp::Graph& g) {
  tp::PlanningGraph pg;
  tp::Status status = tp::build_planning_graph(g, &pg);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return pg;
}

#endif  // TENSORPLAN_TESTS_PLANNING_GRAPH_FOR_TESTS_H
