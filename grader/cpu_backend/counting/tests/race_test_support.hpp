// Helpers of the race detector's tests: a fixture with detection on, and the source lines its
// kernels mark with "// MARK name".
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

// "test_race_detector.cu:LINE" of the line of this file that holds "// MARK <name>".
inline std::string here(const std::string& name) {
    std::ifstream in(RACE_TEST_SOURCE);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        const std::size_t at = line.find("// MARK " + name);
        if (at != std::string::npos && line.size() == at + 8 + name.size()) {
            const std::string path = RACE_TEST_SOURCE;
            return path.substr(path.rfind('/') + 1) + ":" + std::to_string(number);
        }
    }
    return "no mark " + name;
}

// A location's file name and line, without its folders.
inline std::string short_location(const std::string& location) {
    const std::size_t slash = location.rfind('/');
    return slash == std::string::npos ? location : location.substr(slash + 1);
}

inline std::string all(const std::vector<cpu_backend::counting::race_witness>& found) {
    std::string text;
    for (const auto& w : found) text += "\n  " + cpu_backend::counting::describe(w);
    return text;
}

#define EXPECT_NONE()                                           \
    do {                                                        \
        const auto none_found = cpu_backend::counting::races(); \
        EXPECT_TRUE(none_found.empty()) << all(none_found);     \
    } while (0)

// Every test starts from a clean device, the default schedule, detection on, nothing found.
class RaceTest : public testing::Test {
protected:
    void SetUp() override {
        cudaDeviceReset();
        cpu_backend::set_schedule_seed(1);
        cpu_backend::counting::set_race_detection(true);
        cpu_backend::counting::clear_records();
    }
    void TearDown() override {
        cpu_backend::counting::clear_records();
        cudaDeviceReset();
    }
};
