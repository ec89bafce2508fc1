// Helpers shared by the CPU backend's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#define EXPECT_CUDA_SUCCESS(expression) EXPECT_EQ(cudaSuccess, (expression))
#define ASSERT_CUDA_SUCCESS(expression) ASSERT_EQ(cudaSuccess, (expression))
// EXPECT_CONTAINS(text, part): `part` occurs in `text` (without gmock).
#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(contains_text, text, part)

inline testing::AssertionResult contains_text(const char* text_expression, const char* part_expression,
                                              const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
    return testing::AssertionFailure() << text_expression << " does not contain " << part_expression
                                       << "\n  text: " << text << "\n  part: " << part;
}

// Every test starts from a clean device and the default schedule.
class CpuBackendTest : public testing::Test {
protected:
    void SetUp() override {
        cudaDeviceReset();
        cpu_backend::set_schedule_seed(1);
        cpu_backend::set_host_threads(2);
    }
    void TearDown() override { cudaDeviceReset(); }
};

// A cudaMalloc'd array that copies to and from std::vector.
template <class T>
class device_array {
public:
    explicit device_array(std::size_t count) : count_(count) {
        EXPECT_CUDA_SUCCESS(cudaMalloc(&data_, count * sizeof(T)));
    }
    explicit device_array(const std::vector<T>& values) : device_array(values.size()) { upload(values); }
    ~device_array() { cudaFree(data_); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;

    T* get() const { return data_; }
    std::size_t size() const { return count_; }
    void upload(const std::vector<T>& values) {
        EXPECT_CUDA_SUCCESS(cudaMemcpy(data_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    void zero() { EXPECT_CUDA_SUCCESS(cudaMemset(data_, 0, count_ * sizeof(T))); }
    std::vector<T> download() const {
        std::vector<T> values(count_);
        EXPECT_CUDA_SUCCESS(cudaMemcpy(values.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
        return values;
    }

private:
    T* data_ = nullptr;
    std::size_t count_;
};
