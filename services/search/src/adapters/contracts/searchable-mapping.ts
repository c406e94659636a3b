import { indexing } from "@study/contracts";
import { DIFFICULTIES, STATUSES, type Difficulty, type RecordStatus, type RecordType, type SearchRecord } from "../../domain/search-record";

const { SearchableType } = indexing;

/** The proto enum and the spec's type names, both ways. */
const TYPE_BY_PROTO = new Map<indexing.SearchableType, RecordType>([
  [SearchableType.SEARCHABLE_TYPE_NOTE, "note"],
  [SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET, "flashcard_set"],
  [SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE, "study_guide"],
  [SearchableType.SEARCHABLE_TYPE_QUIZ, "quiz"],
  [SearchableType.SEARCHABLE_TYPE_COURSE, "course"],
  [SearchableType.SEARCHABLE_TYPE_DOCUMENT, "document"],
  [SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, "calendar_event"],
  [SearchableType.SEARCHABLE_TYPE_CHAT_SESSION, "chat_session"],
]);
const PROTO_BY_TYPE = new Map([...TYPE_BY_PROTO].map(([proto, type]) => [type, proto]));

export function toProtoType(type: RecordType): indexing.SearchableType {
  return PROTO_BY_TYPE.get(type) ?? SearchableType.SEARCHABLE_TYPE_UNSPECIFIED;
}

const isDifficulty = (value: string | undefined): value is Difficulty => (DIFFICULTIES as readonly (string | undefined)[]).includes(value);
const isStatus = (value: string | undefined): value is RecordStatus => (STATUSES as readonly (string | undefined)[]).includes(value);

export type MappedSearchable = { record: SearchRecord } | { problem: string };

/**
 * The one mapping of the indexing contract's Searchable to the domain record, for events and for the sources
 * of a reindex. What search cannot index without guessing (an unknown type, no id, owner or timestamps) is a
 * problem; a difficulty or status outside the known values is left out.
 */
export function fromSearchable(searchable: indexing.Searchable): MappedSearchable {
  const type = TYPE_BY_PROTO.get(searchable.type);
  if (!type) return { problem: `unknown searchable type ${searchable.type}` };
  if (!searchable.id) return { problem: `${type} without an id` };
  if (!searchable.userId) return { problem: `${type} ${searchable.id} without a user id` };
  if (!searchable.createdAt || !searchable.updatedAt) return { problem: `${type} ${searchable.id} without created_at/updated_at` };
  return {
    record: {
      type,
      id: searchable.id,
      userId: searchable.userId,
      courseId: searchable.courseId || undefined,
      title: searchable.title,
      keywords: searchable.keywords.filter((keyword) => keyword.trim() !== ""),
      description: searchable.description,
      content: searchable.content,
      difficulty: isDifficulty(searchable.difficulty) ? searchable.difficulty : undefined,
      status: isStatus(searchable.status) ? searchable.status : undefined,
      metadata: { ...searchable.metadata },
      createdAt: searchable.createdAt,
      updatedAt: searchable.updatedAt,
    },
  };
}
