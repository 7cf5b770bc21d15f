// Libraries loaded on first use: where burst looks, and what a user reads when one is missing.
#include "util/dynlib.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

TEST(DynLib, LooksForTheSonameThenWhereTheBuildFoundIt) {
  auto names = DynLib::names_for("libx.so.4", "libx.4.dylib", "/opt/x/lib");
#ifdef __APPLE__
  EXPECT_EQ(names, (std::vector<std::string>{"libx.4.dylib", "/opt/x/lib/libx.4.dylib"}));
#else
  EXPECT_EQ(names, (std::vector<std::string>{"libx.so.4", "/opt/x/lib/libx.so.4"}));
#endif
  EXPECT_EQ(DynLib::names_for("libx.so.4", "libx.4.dylib", "").size(), 1u);
}

TEST(DynLib, AMissingLibraryIsAnErrorNamingEveryPlaceTried) {
  auto lib = DynLib::open({"libburst-no-such.so.9", "/nonexistent/libburst-no-such.so.9"});
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.error().message.find("cannot load libburst-no-such.so.9, "
                                     "/nonexistent/libburst-no-such.so.9: "),
            std::string::npos)
      << lib.error().message;
}

TEST(DynLib, ResolvesSymbolsAndNamesAMissingOne) {
#ifdef __APPLE__
  auto lib = DynLib::open({"libSystem.B.dylib"});
#else
  auto lib = DynLib::open({"libc.so.6"});
#endif
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  std::string why;
  EXPECT_NE(lib->symbol("strlen", &why), nullptr) << why;
  EXPECT_EQ(lib->symbol("burst_no_such_symbol", &why), nullptr);
  EXPECT_NE(why.find("burst_no_such_symbol"), std::string::npos) << why;
}

}  // namespace
}  // namespace burst
