#!/usr/bin/env bash
# Build the C++ reference solver (Pascal Pons' connect4, https://github.com/PascalPons/connect4) for
# `c4robot bench engine versus PATH`. Needs git, g++ and the internet; not run in CI, not packaged.
#
#   engine/reference/build_pons.sh [FOLDER]      (default FOLDER: ./pons-connect4)
#
# Its solver is built as published (2^24-entry table, no opening book) but for this CPU (g++ -O3
# -march=native, as ours is compiled by numba for the CPU it runs on). Only its main is
# replaced by a timing main: the table is cleared before each position (untimed) and each line is
# answered with `moves score nodes microseconds`, so the bench compares search times like for like.
# The upstream main (`moves score` only, table kept) works with --versus too, timed by round trips.
set -euo pipefail
folder="${1:-pons-connect4}"
if [ ! -d "$folder/.git" ]; then
    git clone --quiet https://github.com/PascalPons/connect4 "$folder"
fi
cd "$folder"
cat > timing_main.cpp <<'CPP'
// Timing main for c4robot's bench: one line per position, `moves score nodes microseconds`.
#include "Solver.hpp"
#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

using GameSolver::Connect4::Position;
using GameSolver::Connect4::Solver;

int main(int argc, char **argv) {
  const bool weak = argc > 1 && std::string(argv[1]) == "-w";
  Solver solver;
  std::string moves;
  for (int number = 1; std::getline(std::cin, moves); number++) {
    Position position;
    if (position.play(moves) != moves.size()) {
      std::cerr << "line " << number << ": not a playable, unfinished game: " << moves << std::endl;
      std::cout << std::endl;
      continue;
    }
    solver.reset();  // a cold table for every position, as c4robot's bench clears its own
    const auto started = std::chrono::steady_clock::now();
    const int score = solver.solve(position, weak);
    const std::chrono::duration<double, std::micro> spent = std::chrono::steady_clock::now() - started;
    std::cout << moves << ' ' << score << ' ' << solver.getNodeCount() << ' ' << std::fixed << std::setprecision(3)
              << spent.count() << std::endl;
  }
}
CPP
g++ --std=c++11 -W -Wall -O3 -march=native -DNDEBUG -o c4solver timing_main.cpp Solver.cpp
echo "built $(pwd)/c4solver: c4robot bench engine versus $(pwd)/c4solver"
