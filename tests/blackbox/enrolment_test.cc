// indelible-enrolment (examples/enrolment): course enrolment's rules, and
// the races they exist for: 50 students on 50 threads for 10 seats, and one
// student on many threads against the per-student limit, on the memory and
// embedded stores. Then the binary's commands and exit statuses.
#include "enrolment.h"

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <atomic>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testutil/cli_runner.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

using enrolment::Enrolment;

class EnrolmentTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string url = GetParam() == "memory" ? "memory:" : "file:" + dir_.Sub("store");
    auto store = Store::Open(url);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  // The StudentEnrolled events stored for `course`.
  std::size_t EnrolledEvents(const std::string& course) {
    auto events =
        ReadQueryEvents(*store_, Query::Of({QueryItem{{std::string(enrolment::kStudentEnrolled)},
                                                      {enrolment::CourseTag(course)}}}));
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? events->size() : 0;
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

// ok, or the failure with the status that says why.
template <typename T>
::testing::AssertionResult Ok(const Result<T>& result) {
  if (result.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.status().ToString();
}

void ExpectRejected(const Result<enrolment::Outcome>& outcome, const std::string& reason) {
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), ErrorCode::kRejected) << outcome.status().ToString();
  EXPECT_EQ(outcome.status().message(), reason);
}

TEST_P(EnrolmentTest, RulesOneAtATime) {
  Enrolment enrolments(*store_, {.max_courses_per_student = 2});
  ExpectRejected(enrolments.Enrol("s1", "c1"), "course c1 does not exist");
  ASSERT_TRUE(Ok(enrolments.DefineCourse("c1", 1)));
  ExpectRejected(enrolments.DefineCourse("c1", 5), "course c1 exists already");
  ExpectRejected(enrolments.ChangeCapacity("c9", 5), "course c9 does not exist");

  auto first = enrolments.Enrol("s1", "c1");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->attempts, 1);
  ExpectRejected(enrolments.Enrol("s1", "c1"), "student s1 is enrolled in course c1 already");
  ExpectRejected(enrolments.Enrol("s2", "c1"), "course c1 is full (1 of 1)");
  ASSERT_TRUE(Ok(enrolments.ChangeCapacity("c1", 2)));
  ASSERT_TRUE(Ok(enrolments.Enrol("s2", "c1")));

  // The per-student limit counts enrolments held now: a drop frees one.
  ASSERT_TRUE(Ok(enrolments.DefineCourse("c2", 5)));
  ASSERT_TRUE(Ok(enrolments.DefineCourse("c3", 5)));
  ASSERT_TRUE(Ok(enrolments.Enrol("s1", "c2")));
  ExpectRejected(enrolments.Enrol("s1", "c3"),
                 "student s1 holds 2 enrolments already, the most allowed");
  ExpectRejected(enrolments.Drop("s1", "c3"), "student s1 is not enrolled in course c3");
  ASSERT_TRUE(Ok(enrolments.Drop("s1", "c1")));
  ASSERT_TRUE(Ok(enrolments.Enrol("s1", "c3")));
  // ... and a seat in the course.
  ASSERT_TRUE(Ok(enrolments.Enrol("s3", "c1")));

  auto c1 = enrolments.GetCourse("c1");
  ASSERT_TRUE(c1.ok()) << c1.status().ToString();
  EXPECT_EQ(c1->capacity, 2);
  EXPECT_EQ(c1->students, (std::vector<std::string>{"s2", "s3"}));
  auto s1 = enrolments.StudentCourses("s1");
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(*s1, (std::vector<std::string>{"c2", "c3"}));
  EXPECT_EQ(enrolments.GetCourse("c9").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(enrolments.DefineCourse("c4", 0).status().code(), ErrorCode::kInvalid);

  // The events went without a stream, tagged.
  auto events = ReadStreamEvents(*store_, kStreamlessStream);
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_FALSE(events->empty());
  EXPECT_EQ(events->front().type, enrolment::kCourseDefined);
  EXPECT_EQ(events->front().tags, (std::vector<std::string>{"course:c1"}));
}

// Runs `command(i)` for i in [0, n) on n threads released at once; counts
// the successes and checks every failure is a rejection with `reason`.
template <typename Command>
int Race(int n, const std::string& reason, Command command) {
  std::latch start(n);
  std::atomic<int> succeeded{0};
  std::vector<std::string> failures(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto outcome = command(i);
      if (outcome.ok()) {
        ++succeeded;
      } else if (outcome.status().code() != ErrorCode::kRejected ||
                 outcome.status().message() != reason) {
        failures[i] = outcome.status().ToString();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < n; ++i) EXPECT_EQ(failures[i], "") << "command " << i;
  return succeeded.load();
}

TEST_P(EnrolmentTest, FiftyStudentsRaceForTenSeats) {
  // Each conflict means another enrolment in the course was written after
  // the read, and at most 10 are: 11 decisions always suffice.
  Enrolment enrolments(*store_, {.max_attempts = 11});
  ASSERT_TRUE(Ok(enrolments.DefineCourse("c1", 10)));
  const int succeeded = Race(50, "course c1 is full (10 of 10)", [&](int i) {
    return enrolments.Enrol("s" + std::to_string(i), "c1");
  });
  EXPECT_EQ(succeeded, 10);
  EXPECT_EQ(EnrolledEvents("c1"), 10u);
  auto course = enrolments.GetCourse("c1");
  ASSERT_TRUE(course.ok());
  EXPECT_EQ(course->students.size(), 10u);
}

TEST_P(EnrolmentTest, OneStudentRacesIntoTwelveCoursesAgainstTheLimit) {
  Enrolment enrolments(*store_, {.max_courses_per_student = 3, .max_attempts = 4});
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(Ok(enrolments.DefineCourse("c" + std::to_string(i), 5)));
  const int succeeded =
      Race(12, "student s1 holds 3 enrolments already, the most allowed",
           [&](int i) { return enrolments.Enrol("s1", "c" + std::to_string(i)); });
  EXPECT_EQ(succeeded, 3);
  auto courses = enrolments.StudentCourses("s1");
  ASSERT_TRUE(courses.ok());
  EXPECT_EQ(courses->size(), 3u);
  std::size_t stored = 0;
  for (int i = 0; i < 12; ++i) stored += EnrolledEvents("c" + std::to_string(i));
  EXPECT_EQ(stored, 3u);
}

TEST_P(EnrolmentTest, BothLimitsAtOnce) {
  // 8 students each try 4 courses of 3 seats, all 32 commands at once: no
  // course takes more than 3, no student more than 2.
  // A command conflicts only when an enrolment it depends on is written,
  // and at most 12 are: 13 decisions always suffice.
  Enrolment enrolments(*store_, {.max_courses_per_student = 2, .max_attempts = 13});
  for (int c = 0; c < 4; ++c) ASSERT_TRUE(Ok(enrolments.DefineCourse("c" + std::to_string(c), 3)));
  std::latch start(32);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(32);
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto outcome = enrolments.Enrol("s" + std::to_string(i / 4), "c" + std::to_string(i % 4));
      if (!outcome.ok() && outcome.status().code() != ErrorCode::kRejected)
        errors[i] = outcome.status().ToString();
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors) EXPECT_EQ(error, "");
  std::size_t seats = 0;
  for (int c = 0; c < 4; ++c) {
    auto course = enrolments.GetCourse("c" + std::to_string(c));
    ASSERT_TRUE(course.ok());
    EXPECT_LE(course->students.size(), 3u);
    EXPECT_EQ(EnrolledEvents("c" + std::to_string(c)), course->students.size());
    seats += course->students.size();
  }
  std::size_t held = 0;
  for (int s = 0; s < 8; ++s) {
    auto courses = enrolments.StudentCourses("s" + std::to_string(s));
    ASSERT_TRUE(courses.ok());
    EXPECT_LE(courses->size(), 2u);
    held += courses->size();
  }
  EXPECT_EQ(held, seats);
  // Every seat is taken: a course left with k < 3 students refused the
  // other 8 - k for their limit, so they hold 2 each, 2 * (8 - k) > 12
  // enrolments in 12 seats.
  EXPECT_EQ(seats, 12u);
}

INSTANTIATE_TEST_SUITE_P(Stores, EnrolmentTest, ::testing::Values("memory", "embedded"),
                         [](const auto& p) { return p.param; });

TEST(EnrolmentCliTest, CommandsAndExitStatuses) {
  testutil::TempDir dir;
  const std::string global = "--store file:" + dir.Sub("store");
  auto run = [&](const std::string& args) {
    return testutil::RunCli(INDELIBLE_ENROLMENT_PATH, global, args, "", dir);
  };
  auto defined = run("define-course c1 --capacity 1");
  ASSERT_EQ(defined.exit_code, 0) << defined.err;
  EXPECT_EQ(defined.out, "defined course c1 (capacity 1) at position 1\n");
  auto enrolled = run("enrol s1 c1");
  ASSERT_EQ(enrolled.exit_code, 0) << enrolled.err;
  EXPECT_EQ(enrolled.out, "enrolled s1 in c1 at position 2\n");
  auto full = run("enrol s2 c1");
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_NE(full.err.find("course c1 is full (1 of 1)"), std::string::npos) << full.err;
  ASSERT_EQ(run("change-capacity c1 --capacity 2").exit_code, 0);
  ASSERT_EQ(run("enrol s2 c1").exit_code, 0);
  ASSERT_EQ(run("drop s1 c1").exit_code, 0);
  EXPECT_EQ(run("course c1").out, R"({"course":"c1","capacity":2,"students":["s2"]})"
                                  "\n");
  EXPECT_EQ(run("student s2").out, R"({"student":"s2","courses":["c1"]})"
                                   "\n");
  ASSERT_EQ(run("define-course c2 --capacity 5").exit_code, 0);
  auto limited = run("--max-per-student 1 enrol s2 c2");
  EXPECT_EQ(limited.exit_code, 2);
  EXPECT_NE(limited.err.find("student s2 holds 1 enrolments already"), std::string::npos)
      << limited.err;
  EXPECT_EQ(run("course c9").exit_code, 1);
}

}  // namespace
}  // namespace indelible
