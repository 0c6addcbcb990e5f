#include "loom/report/html/csv_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "user_error.h"

namespace loom::report::html {
namespace {

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("loom_csv_reader_test." + name);
  std::ofstream(path) << text;
  return path;
}

TEST(CsvReader, ReadsQuotedFieldsNumbersAndLineNumbers) {
  CsvReader csv(write("quoted.csv", "label,size,busbw\n\"a, \"\"quoted\"\" label\",1024,12.5\n\nplain,,x\r\n"));
  ASSERT_EQ(csv.header().size(), 3u);
  EXPECT_EQ(csv.column("busbw"), 2u);
  EXPECT_FALSE(csv.column("nothing").has_value());
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.field(0), "a, \"quoted\" label");
  EXPECT_EQ(csv.number(1), 1024);
  EXPECT_EQ(csv.number(2), 12.5);
  EXPECT_EQ(csv.line(), 2u);
  ASSERT_TRUE(csv.next());  // the blank line is skipped
  EXPECT_EQ(csv.line(), 4u);
  EXPECT_EQ(csv.field(0), "plain");
  EXPECT_TRUE(std::isnan(csv.number(1)));  // empty
  EXPECT_TRUE(std::isnan(csv.number(2)));  // not a number
  EXPECT_EQ(csv.field(7), "");             // past the row's end
  EXPECT_FALSE(csv.next());
}

TEST(CsvReader, NumbersMustBeWholeFields) {
  EXPECT_EQ(parse_number("1e3"), 1000);
  EXPECT_EQ(parse_number("-0.25"), -0.25);
  EXPECT_TRUE(std::isnan(parse_number("12us")));
  EXPECT_TRUE(std::isnan(parse_number("")));
}

TEST(CsvReader, MissingOrEmptyFilesAreUserErrors) {
  using ::testing::HasSubstr;
  EXPECT_THAT(loom::testing::user_error_of(
                  [] { CsvReader(std::filesystem::temp_directory_path() / "loom_csv_reader_test.absent.csv"); }),
              HasSubstr("cannot open"));
  EXPECT_THAT(loom::testing::user_error_of([] { CsvReader(write("empty.csv", "")); }),
              HasSubstr("empty.csv: expected a CSV header line"));
}

}  // namespace
}  // namespace loom::report::html
