#include "enrolment.h"

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <utility>

#include "json_fields.h"

namespace enrolment {
namespace {

using indelible::AppendCondition;
using indelible::AppendRequest;
using indelible::CommitOptions;
using indelible::EventData;
using indelible::EventView;
using indelible::Position;
using indelible::Query;
using indelible::QueryItem;
using indelible::Result;
using indelible::Status;
using indelible::Store;

// Ids become tags, which the store limits to 128 bytes.
constexpr std::size_t kMaxIdBytes = 100;

Status CheckId(std::string_view field, std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes)
    return Status::Invalid(std::string(field), "must be 1 to 100 bytes");
  return Status::Ok();
}

// What the events a decision read say about one course and one student
// (either id may be empty: nothing is gathered for it).
struct Facts {
  bool course_defined = false;
  std::int64_t capacity = 0;
  std::vector<std::string> course_students;  // enrolled now
  std::vector<std::string> student_courses;  // enrolled in now
  // The last event read: the condition's `after`. None read: the condition
  // fails on any matching event.
  std::optional<Position> last_read;
};

void Apply(std::vector<std::string>& ids, const std::string& id, bool enrolled) {
  auto it = std::find(ids.begin(), ids.end(), id);
  if (enrolled && it == ids.end()) ids.push_back(id);
  if (!enrolled && it != ids.end()) ids.erase(it);
}

bool Contains(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

Status Fold(const EventView& event, std::string_view course, std::string_view student,
            Facts& facts) {
  auto data = json_fields::ParseObject(event.data);
  if (!data.ok()) return data.status();
  if (event.type == kCourseDefined || event.type == kCourseCapacityChanged) {
    auto id = json_fields::String(*data, "course");
    if (!id.ok()) return id.status();
    auto capacity = json_fields::Integer(*data, "capacity");
    if (!capacity.ok()) return capacity.status();
    if (*id == course) {
      facts.course_defined = true;
      facts.capacity = *capacity;
    }
  } else if (event.type == kStudentEnrolled || event.type == kStudentDropped) {
    auto event_course = json_fields::String(*data, "course");
    if (!event_course.ok()) return event_course.status();
    auto event_student = json_fields::String(*data, "student");
    if (!event_student.ok()) return event_student.status();
    const bool enrolled = event.type == kStudentEnrolled;
    if (*event_course == course) Apply(facts.course_students, *event_student, enrolled);
    if (*event_student == student) Apply(facts.student_courses, *event_course, enrolled);
  }
  return Status::Ok();
}

Result<Facts> ReadFacts(Store& store, const Query& query, std::string_view course,
                        std::string_view student) {
  auto cursor = store.ReadQuery(query);
  if (!cursor.ok()) return cursor.status();
  Facts facts;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    facts.last_read = event.position;
    if (Status folded = Fold(event, course, student, facts); !folded.ok()) return folded;
  }
  if (!(*cursor)->status().ok()) return (*cursor)->status();
  return facts;
}

EventData MakeEvent(std::string_view type, boost::json::object data,
                    std::vector<std::string> tags) {
  EventData event;
  event.type = std::string(type);
  event.data = boost::json::serialize(data);
  event.tags = std::move(tags);
  return event;
}

// Read, decide, append on the condition that nothing the read matched was
// written since; on a condition conflict, all over again. `decide` answers
// the event to write, or why not.
template <typename DecideFn>
Result<Outcome> Decide(Store& store, const Options& options, const Query& query,
                       std::string_view course, std::string_view student, DecideFn decide) {
  for (int attempt = 1;; ++attempt) {
    auto facts = ReadFacts(store, query, course, student);
    if (!facts.ok()) return facts.status();
    Result<EventData> event = decide(*facts);
    if (!event.ok()) return event.status();
    CommitOptions commit_options;
    commit_options.condition = AppendCondition{query, facts->last_read};
    // No stream of its own: the reserved one for events without a stream.
    std::vector<AppendRequest> appends(1);
    appends[0].stream = std::string(indelible::kStreamlessStream);
    appends[0].events.push_back(std::move(*event));
    auto written = store.Commit(std::move(appends), commit_options);
    if (written.ok()) return Outcome{written->position, attempt};
    if (!written.status().condition_position().has_value() || attempt >= options.max_attempts)
      return written.status();
  }
}

const std::vector<std::string> kCourseTypes = {std::string(kCourseDefined),
                                               std::string(kCourseCapacityChanged)};
const std::vector<std::string> kEnrolmentTypes = {std::string(kStudentEnrolled),
                                                  std::string(kStudentDropped)};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::string CourseTag(std::string_view course) { return "course:" + std::string(course); }
std::string StudentTag(std::string_view student) { return "student:" + std::string(student); }

Result<Outcome> Enrolment::DefineCourse(std::string_view course, std::int64_t capacity) {
  if (Status s = CheckId("course", course); !s.ok()) return s;
  if (capacity < 1) return Status::Invalid("capacity", "must be at least 1");
  const Query query = Query::Of({QueryItem{{std::string(kCourseDefined)}, {CourseTag(course)}}});
  return Decide(store_, options_, query, course, "", [&](const Facts& facts) -> Result<EventData> {
    if (facts.course_defined)
      return Status::Rejected("course " + std::string(course) + " exists already");
    return MakeEvent(kCourseDefined, {{"course", course}, {"capacity", capacity}},
                     {CourseTag(course)});
  });
}

Result<Outcome> Enrolment::ChangeCapacity(std::string_view course, std::int64_t capacity) {
  if (Status s = CheckId("course", course); !s.ok()) return s;
  if (capacity < 1) return Status::Invalid("capacity", "must be at least 1");
  const Query query = Query::Of({QueryItem{kCourseTypes, {CourseTag(course)}}});
  return Decide(store_, options_, query, course, "", [&](const Facts& facts) -> Result<EventData> {
    if (!facts.course_defined)
      return Status::Rejected("course " + std::string(course) + " does not exist");
    return MakeEvent(kCourseCapacityChanged, {{"course", course}, {"capacity", capacity}},
                     {CourseTag(course)});
  });
}

Result<Outcome> Enrolment::Enrol(std::string_view student, std::string_view course) {
  if (Status s = CheckId("student", student); !s.ok()) return s;
  if (Status s = CheckId("course", course); !s.ok()) return s;
  // The course's definition, capacity and enrolments; the student's
  // enrolments in any course. An event of either kind written after the
  // read may change the answer, so both are the condition.
  const Query query =
      Query::Of({QueryItem{Concat(kCourseTypes, kEnrolmentTypes), {CourseTag(course)}},
                 QueryItem{kEnrolmentTypes, {StudentTag(student)}}});
  const std::int64_t limit = options_.max_courses_per_student;
  return Decide(store_, options_, query, course, student,
                [&](const Facts& facts) -> Result<EventData> {
                  const std::string who = "student " + std::string(student);
                  const std::string what = "course " + std::string(course);
                  if (!facts.course_defined) return Status::Rejected(what + " does not exist");
                  if (Contains(facts.course_students, student))
                    return Status::Rejected(who + " is enrolled in " + what + " already");
                  const auto enrolled = static_cast<std::int64_t>(facts.course_students.size());
                  if (enrolled >= facts.capacity)
                    return Status::Rejected(what + " is full (" + std::to_string(enrolled) +
                                            " of " + std::to_string(facts.capacity) + ")");
                  if (static_cast<std::int64_t>(facts.student_courses.size()) >= limit)
                    return Status::Rejected(who + " holds " + std::to_string(limit) +
                                            " enrolments already, the most allowed");
                  return MakeEvent(kStudentEnrolled, {{"student", student}, {"course", course}},
                                   {CourseTag(course), StudentTag(student)});
                });
}

Result<Outcome> Enrolment::Drop(std::string_view student, std::string_view course) {
  if (Status s = CheckId("student", student); !s.ok()) return s;
  if (Status s = CheckId("course", course); !s.ok()) return s;
  // Only this student's enrolments in this course decide it.
  const Query query =
      Query::Of({QueryItem{kEnrolmentTypes, {CourseTag(course), StudentTag(student)}}});
  return Decide(store_, options_, query, course, student,
                [&](const Facts& facts) -> Result<EventData> {
                  if (!Contains(facts.student_courses, course))
                    return Status::Rejected("student " + std::string(student) +
                                            " is not enrolled in course " + std::string(course));
                  return MakeEvent(kStudentDropped, {{"student", student}, {"course", course}},
                                   {CourseTag(course), StudentTag(student)});
                });
}

Result<Course> Enrolment::GetCourse(std::string_view course) {
  if (Status s = CheckId("course", course); !s.ok()) return s;
  const Query query =
      Query::Of({QueryItem{Concat(kCourseTypes, kEnrolmentTypes), {CourseTag(course)}}});
  auto facts = ReadFacts(store_, query, course, "");
  if (!facts.ok()) return facts.status();
  if (!facts->course_defined)
    return Status::NotFound("course " + std::string(course) + " does not exist");
  return Course{std::string(course), facts->capacity, std::move(facts->course_students)};
}

Result<std::vector<std::string>> Enrolment::StudentCourses(std::string_view student) {
  if (Status s = CheckId("student", student); !s.ok()) return s;
  const Query query = Query::Of({QueryItem{kEnrolmentTypes, {StudentTag(student)}}});
  auto facts = ReadFacts(store_, query, "", student);
  if (!facts.ok()) return facts.status();
  return std::move(facts->student_courses);
}

}  // namespace enrolment
