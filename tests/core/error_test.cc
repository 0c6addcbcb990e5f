#include "loom/core/error.h"

#include <gtest/gtest.h>

#include <string>

namespace loom {
namespace {

TEST(Excerpt, EscapesWhatIsNotPrintableAsciiAndCutsLongText) {
  EXPECT_EQ(excerpt("MICRO"), "MICRO");
  EXPECT_EQ(excerpt(std::string("\x7f" "ELF\x02\x01\x00", 7)), "\\x7fELF\\x02\\x01\\x00");
  EXPECT_EQ(excerpt("caf\xc3\xa9\t"), "caf\\xc3\\xa9\\x09");
  EXPECT_EQ(excerpt(std::string(40, 'a'), 32), std::string(32, 'a') + "...");
  EXPECT_EQ(excerpt(std::string(32, 'a'), 32), std::string(32, 'a'));
}

}  // namespace
}  // namespace loom
