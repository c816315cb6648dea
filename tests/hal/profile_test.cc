#include "hal/profile.h"

#include <gtest/gtest.h>

#include <string>

namespace nncosim::hal::profile {
namespace {

TEST(ProfileTest, OffRecordsNothing) {
  clear();
  enable(false);
  { Scope s("off"); }
  add("off", 5);
  EXPECT_TRUE(entries().empty());
  EXPECT_EQ(get("off").calls, 0u);
}

TEST(ProfileTest, PhasesSumTimesAndCallsByName) {
  clear();
  enable(true);
  add("a", 10);
  add("b", 1, 3);
  // The same name from another literal (another translation unit's) is the same phase.
  const std::string again = "a";
  add(again.c_str(), 5);
  { Scope s("c"); }
  enable(false);
  ASSERT_EQ(entries().size(), 3u);
  EXPECT_EQ(std::string(entries()[0].phase), "a");
  EXPECT_EQ(get("a").nanos, 15u);
  EXPECT_EQ(get("a").calls, 2u);
  EXPECT_EQ(get("b").calls, 3u);
  EXPECT_EQ(get("c").calls, 1u);
  EXPECT_EQ(get("missing").calls, 0u);
  clear();
}

TEST(ProfileTest, StopEndsTheScopeOnce) {
  clear();
  enable(true);
  {
    Scope s("once");
    s.stop();
    s.stop();
  }
  enable(false);
  EXPECT_EQ(get("once").calls, 1u);
  EXPECT_GT(processNanos(), 0u);
  clear();
}

}  // namespace
}  // namespace nncosim::hal::profile
