/**
 * The search benchmark's corpus and its labelled queries, generated deterministically (a seeded PRNG), so that
 * every run measures the same thing.
 *
 * Courses hold subtopics; every subtopic has a name, key terms and facts. Each generated record (note, flashcard
 * set, quiz, study guide) is ABOUT one subtopic (its title and most of its text), and also mentions one or two
 * other subtopics in passing (a sentence in its content) — the distractors a good ranking puts lower. A query is
 * labelled with the records about its subtopic (and the course, for queries naming a course): precision@5 and
 * MRR then say whether the records a student was looking for come first.
 */

export type BenchRecordType = "note" | "flashcard_set" | "quiz" | "study_guide" | "course";

export interface BenchRecord {
  type: BenchRecordType;
  id: string;
  courseId: string;
  title: string;
  keywords: string[];
  description: string;
  content: string;
  difficulty?: "EASY" | "MEDIUM" | "HARD";
  status?: "COMPLETED" | "PROCESSING" | "FAILED";
  createdAt: Date;
  /** The subtopic the record is about (absent for courses). */
  subtopic?: string;
}

export type QueryKind = "exact" | "multi-word" | "typo" | "prefix" | "cross-type" | "course";

export interface LabelledQuery {
  text: string;
  kind: QueryKind;
  /** Ids of the records a student typing this wants to see. */
  relevant: string[];
}

interface Subtopic {
  name: string;
  /** Distinctive single words (for typo and prefix queries), at least 6 letters. */
  terms: string[];
  facts: string[];
}

interface CourseSeed {
  name: string;
  code: string;
  professor: string;
  semester: string;
  subtopics: Subtopic[];
}

const COURSES: CourseSeed[] = [
  {
    name: "Cell Biology",
    code: "BIO 201",
    professor: "Dr. Amara Okafor",
    semester: "Fall 2026",
    subtopics: [
      {
        name: "Photosynthesis",
        terms: ["photosynthesis", "chlorophyll"],
        facts: [
          "Photosynthesis converts light energy into chemical energy stored in glucose.",
          "Chlorophyll in the thylakoid membranes absorbs red and blue light.",
        ],
      },
      {
        name: "Calvin cycle",
        terms: ["rubisco", "carboxylation"],
        facts: ["The Calvin cycle fixes carbon dioxide in the stroma.", "Rubisco catalyses the carboxylation of ribulose bisphosphate."],
      },
      {
        name: "Mitochondrial respiration",
        terms: ["mitochondria", "oxidative"],
        facts: ["Mitochondria produce ATP by oxidative phosphorylation.", "The electron transport chain pumps protons across the inner membrane."],
      },
      {
        name: "Mitosis",
        terms: ["mitosis", "anaphase", "kinetochore"],
        facts: ["During anaphase sister chromatids separate to opposite poles.", "Kinetochore microtubules attach to the centromere."],
      },
      {
        name: "Membrane transport",
        terms: ["osmosis", "diffusion", "aquaporin"],
        facts: [
          "Osmosis is the diffusion of water across a semipermeable membrane.",
          "Aquaporins are channels that let water cross the membrane quickly.",
        ],
      },
    ],
  },
  {
    name: "Introduction to Geology",
    code: "GEO 101",
    professor: "Prof. Lars Eriksen",
    semester: "Fall 2026",
    subtopics: [
      {
        name: "Plate tectonics",
        terms: ["tectonics", "lithosphere", "subduction"],
        facts: ["The lithosphere is broken into plates that move over the asthenosphere.", "Subduction zones form deep ocean trenches."],
      },
      {
        name: "Continental drift",
        terms: ["wegener", "pangaea"],
        facts: ["Alfred Wegener proposed continental drift in 1912.", "Pangaea was a supercontinent that broke apart about 200 million years ago."],
      },
      {
        name: "Volcanoes",
        terms: ["volcano", "magma", "caldera"],
        facts: ["Magma that reaches the surface is called lava.", "A caldera forms when a volcano collapses after an eruption."],
      },
      {
        name: "Earthquakes",
        terms: ["earthquake", "seismic", "epicenter"],
        facts: ["Seismic waves radiate from the focus of an earthquake.", "The epicenter lies on the surface directly above the focus."],
      },
      {
        name: "Rock cycle",
        terms: ["metamorphic", "sedimentary", "igneous"],
        facts: ["Igneous rock forms when magma cools.", "Heat and pressure turn sedimentary rock into metamorphic rock."],
      },
    ],
  },
  {
    name: "Microeconomics",
    code: "ECON 110",
    professor: "Dr. Sofia Marquez",
    semester: "Spring 2026",
    subtopics: [
      {
        name: "Supply and demand",
        terms: ["equilibrium", "shortage"],
        facts: ["The equilibrium price is where supply equals demand.", "A price ceiling below equilibrium causes a shortage."],
      },
      {
        name: "Price elasticity",
        terms: ["elasticity", "inelastic"],
        facts: ["Price elasticity measures how quantity demanded responds to price.", "Demand for insulin is inelastic."],
      },
      {
        name: "Monopoly",
        terms: ["monopoly", "deadweight"],
        facts: ["A monopoly sets marginal revenue equal to marginal cost.", "Monopoly pricing creates a deadweight loss."],
      },
      {
        name: "Externalities",
        terms: ["externality", "pigouvian"],
        facts: ["Pollution is a negative externality.", "A Pigouvian tax corrects a negative externality."],
      },
      {
        name: "Game theory",
        terms: ["prisoner", "dilemma", "nash"],
        facts: [
          "A Nash equilibrium is a set of strategies where no player gains by deviating.",
          "The prisoner's dilemma shows why cooperation is hard.",
        ],
      },
    ],
  },
  {
    name: "Organic Chemistry",
    code: "CHEM 230",
    professor: "Prof. Hiroshi Tanaka",
    semester: "Spring 2026",
    subtopics: [
      {
        name: "Chirality",
        terms: ["chirality", "enantiomer", "stereocenter"],
        facts: ["Enantiomers are mirror images that cannot be superimposed.", "A stereocenter carries four different groups."],
      },
      {
        name: "Nucleophilic substitution",
        terms: ["nucleophile", "substitution"],
        facts: ["SN2 reactions invert the configuration at carbon.", "A strong nucleophile favours bimolecular substitution."],
      },
      {
        name: "Aromaticity",
        terms: ["aromatic", "benzene", "huckel"],
        facts: ["Benzene is aromatic with six pi electrons.", "Huckel's rule requires 4n+2 pi electrons."],
      },
      {
        name: "Alkenes",
        terms: ["alkene", "markovnikov", "hydrogenation"],
        facts: ["Markovnikov's rule predicts where hydrogen adds to an alkene.", "Catalytic hydrogenation turns an alkene into an alkane."],
      },
      {
        name: "Spectroscopy",
        terms: ["spectroscopy", "infrared", "resonance"],
        facts: ["Infrared spectroscopy reveals functional groups.", "Nuclear magnetic resonance shows the carbon skeleton."],
      },
    ],
  },
  {
    name: "European History",
    code: "HIST 204",
    professor: "Dr. Margaret Hale",
    semester: "Fall 2025",
    subtopics: [
      {
        name: "French Revolution",
        terms: ["bastille", "jacobins"],
        facts: ["The storming of the Bastille took place in 1789.", "The Jacobins led the Reign of Terror."],
      },
      {
        name: "Industrial Revolution",
        terms: ["industrial", "textile", "steam"],
        facts: ["The steam engine powered textile mills in Manchester.", "The Industrial Revolution began in Britain."],
      },
      {
        name: "Congress of Vienna",
        terms: ["vienna", "metternich"],
        facts: ["Metternich hosted the Congress of Vienna in 1815.", "The Congress of Vienna redrew the map after Napoleon."],
      },
      {
        name: "Unification of Germany",
        terms: ["bismarck", "unification"],
        facts: ["Bismarck unified Germany in 1871.", "The Franco-Prussian War completed German unification."],
      },
      {
        name: "Renaissance",
        terms: ["renaissance", "humanism", "florence"],
        facts: ["The Renaissance began in Florence.", "Humanism revived the study of classical texts."],
      },
    ],
  },
  {
    name: "Linear Algebra",
    code: "MATH 221",
    professor: "Prof. Ingrid Nilsen",
    semester: "Fall 2026",
    subtopics: [
      {
        name: "Eigenvalues",
        terms: ["eigenvalue", "eigenvector", "characteristic"],
        facts: ["An eigenvector keeps its direction under the transformation.", "Eigenvalues are roots of the characteristic polynomial."],
      },
      {
        name: "Determinants",
        terms: ["determinant", "invertible"],
        facts: ["A matrix is invertible when its determinant is not zero.", "The determinant gives the volume scaling factor."],
      },
      {
        name: "Vector spaces",
        terms: ["subspace", "basis", "dimension"],
        facts: ["A basis is a linearly independent spanning set.", "The dimension is the number of basis vectors."],
      },
      {
        name: "Orthogonality",
        terms: ["orthogonal", "projection", "gramschmidt"],
        facts: ["Gram-Schmidt turns a basis into an orthogonal basis.", "The projection onto a subspace minimises distance."],
      },
      {
        name: "Singular value decomposition",
        terms: ["singular", "decomposition"],
        facts: ["Every matrix has a singular value decomposition.", "Singular values are square roots of eigenvalues of the Gram matrix."],
      },
    ],
  },
  {
    name: "Cognitive Psychology",
    code: "PSY 240",
    professor: "Dr. Daniel Brooks",
    semester: "Spring 2026",
    subtopics: [
      {
        name: "Working memory",
        terms: ["memory", "baddeley", "phonological"],
        facts: ["Baddeley's model has a phonological loop and a visuospatial sketchpad.", "Working memory holds about four chunks."],
      },
      {
        name: "Attention",
        terms: ["attention", "cocktail", "selective"],
        facts: ["The cocktail party effect shows selective attention.", "Divided attention lowers performance on both tasks."],
      },
      {
        name: "Classical conditioning",
        terms: ["pavlov", "conditioning", "stimulus"],
        facts: ["Pavlov paired a bell with food.", "A conditioned stimulus comes to elicit a conditioned response."],
      },
      {
        name: "Cognitive biases",
        terms: ["heuristic", "anchoring", "confirmation"],
        facts: ["Anchoring makes the first number we hear weigh too much.", "Confirmation bias favours evidence that fits our beliefs."],
      },
      {
        name: "Language acquisition",
        terms: ["chomsky", "grammar", "acquisition"],
        facts: ["Chomsky argued for a universal grammar.", "Children acquire language in a critical period."],
      },
    ],
  },
  {
    name: "Computer Networks",
    code: "CS 356",
    professor: "Prof. Rachel Kim",
    semester: "Fall 2026",
    subtopics: [
      {
        name: "TCP congestion control",
        terms: ["congestion", "slowstart", "retransmission"],
        facts: ["TCP halves its window after a loss.", "Slow start grows the congestion window exponentially."],
      },
      {
        name: "Routing",
        terms: ["routing", "dijkstra", "bellman"],
        facts: ["Link-state routing runs Dijkstra's algorithm.", "Distance-vector routing uses the Bellman-Ford equation."],
      },
      {
        name: "Domain Name System",
        terms: ["resolver", "nameserver", "dns"],
        facts: ["A DNS resolver asks the root, then the TLD nameserver.", "DNS answers are cached for their time to live."],
      },
      {
        name: "Wireless networks",
        terms: ["wireless", "collision", "csma"],
        facts: ["Wi-Fi uses CSMA with collision avoidance.", "Hidden terminals cause collisions in wireless networks."],
      },
      {
        name: "Network security",
        terms: ["firewall", "encryption", "certificate"],
        facts: ["TLS authenticates the server with a certificate.", "A firewall filters packets by rules."],
      },
    ],
  },
  {
    name: "World Literature",
    code: "LIT 150",
    professor: "Dr. Elena Petrova",
    semester: "Spring 2026",
    subtopics: [
      {
        name: "Sense and Sensibility",
        terms: ["dashwood", "austen"],
        facts: ["Elinor Dashwood represents sense.", "Jane Austen published Sense and Sensibility in 1811."],
      },
      {
        name: "Magical realism",
        terms: ["macondo", "marquez"],
        facts: ["Garcia Marquez set One Hundred Years of Solitude in Macondo.", "Magical realism treats the marvellous as ordinary."],
      },
      {
        name: "Greek tragedy",
        terms: ["oedipus", "catharsis", "sophocles"],
        facts: ["Sophocles wrote Oedipus Rex.", "Aristotle said tragedy brings catharsis."],
      },
      {
        name: "Modernism",
        terms: ["modernism", "woolf", "consciousness"],
        facts: ["Virginia Woolf used stream of consciousness.", "Modernism broke with linear narrative."],
      },
      {
        name: "Russian novel",
        terms: ["dostoevsky", "raskolnikov", "tolstoy"],
        facts: ["Raskolnikov is the hero of Crime and Punishment.", "Tolstoy wrote War and Peace."],
      },
    ],
  },
  {
    name: "Human Physiology",
    code: "BIO 310",
    professor: "Prof. Kwame Mensah",
    semester: "Fall 2026",
    subtopics: [
      {
        name: "Cardiac cycle",
        terms: ["cardiac", "systole", "diastole"],
        facts: ["Systole is the contraction of the ventricles.", "During diastole the heart fills with blood."],
      },
      {
        name: "Action potentials",
        terms: ["neuron", "depolarization", "sodium"],
        facts: ["Sodium channels open during depolarization.", "The action potential travels along the axon."],
      },
      {
        name: "Kidney function",
        terms: ["nephron", "filtration", "glomerulus"],
        facts: ["The glomerulus filters blood plasma.", "The nephron reabsorbs water and salts."],
      },
      {
        name: "Hormones",
        terms: ["insulin", "glucagon", "pancreas"],
        facts: ["The pancreas releases insulin when blood glucose rises.", "Glucagon raises blood glucose."],
      },
      {
        name: "Immune response",
        terms: ["antibody", "lymphocyte", "antigen"],
        facts: ["B lymphocytes produce antibodies.", "An antigen triggers the adaptive immune response."],
      },
    ],
  },
];

const FILLER = [
  "Remember to review this before the exam.",
  "The professor spent most of the session on worked examples.",
  "Questions from last week were answered at the start.",
  "We compared two textbook explanations of the same idea.",
  "The slides are posted on the course page.",
  "A short recap closed the lecture.",
  "The homework asks for three examples of this.",
  "Several students asked about the reading for next week.",
];

/** Mulberry32: a small seeded PRNG, so that the corpus is the same on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Corpus {
  records: BenchRecord[];
  queries: LabelledQuery[];
}

const RECORD_TYPES: Exclude<BenchRecordType, "course">[] = ["note", "flashcard_set", "quiz", "study_guide"];
const DIFFICULTIES = ["EASY", "MEDIUM", "HARD"] as const;

/** One user's corpus: `recordsPerSubtopic` records about each of the 50 subtopics, plus the 10 courses. */
export function generateCorpus(options: { seed?: number; recordsPerSubtopic?: number; idPrefix?: string } = {}): Corpus {
  const random = prng(options.seed ?? 42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const perSubtopic = options.recordsPerSubtopic ?? 60;
  const idPrefix = options.idPrefix ?? "r";
  let sequence = 0;
  const nextId = () => `${idPrefix}-${(sequence++).toString().padStart(6, "0")}`;
  const baseTime = Date.UTC(2026, 0, 5);

  const allSubtopics = COURSES.flatMap((course) => course.subtopics);
  const records: BenchRecord[] = [];
  const bySubtopic = new Map<string, string[]>();
  const courseIds = new Map<string, string>();

  for (const course of COURSES) {
    const courseId = nextId();
    courseIds.set(course.name, courseId);
    records.push({
      type: "course",
      id: courseId,
      courseId,
      title: course.name,
      keywords: [course.code, course.professor, course.semester],
      description: `${course.name}: ${course.subtopics.map((s) => s.name).join(", ")}.`,
      content: "",
      createdAt: new Date(baseTime),
    });
    for (const subtopic of course.subtopics) {
      const ids: string[] = [];
      for (let n = 0; n < perSubtopic; n++) {
        const type = RECORD_TYPES[n % RECORD_TYPES.length];
        const others = [pick(allSubtopics), pick(allSubtopics)].filter((other) => other !== subtopic);
        const body = [
          ...subtopic.facts,
          pick(FILLER),
          // In passing: a distractor mention of another subtopic.
          ...others.map((other) => `This links to ${other.name.toLowerCase()}: ${other.facts[0]}`),
          pick(FILLER),
        ];
        const id = nextId();
        ids.push(id);
        const lecture = 1 + Math.floor(random() * 14);
        records.push({
          type,
          id,
          courseId,
          title: titleFor(type, subtopic.name, lecture),
          keywords: [],
          description: type === "note" ? subtopic.facts[0] : `${subtopic.name} for ${course.code}`,
          content: type === "flashcard_set" ? subtopic.facts.map((fact) => `${questionFor(fact)} — ${fact}`).join("\n") : body.join(" "),
          difficulty: type === "note" ? undefined : pick(DIFFICULTIES),
          status: type === "note" ? (random() < 0.9 ? "COMPLETED" : "FAILED") : undefined,
          createdAt: new Date(baseTime + Math.floor(random() * 300) * 86_400_000),
          subtopic: subtopic.name,
        });
      }
      bySubtopic.set(subtopic.name, ids);
    }
  }

  const queries: LabelledQuery[] = [];
  for (const subtopic of allSubtopics) {
    const relevant = bySubtopic.get(subtopic.name) ?? [];
    const term = subtopic.terms[0];
    queries.push({ text: subtopic.name.toLowerCase(), kind: subtopic.name.includes(" ") ? "multi-word" : "exact", relevant });
    // Every other subtopic: a typo in its first term (an inner letter swapped for a neighbour); the rest a prefix.
    queries.push(
      allSubtopics.indexOf(subtopic) % 2 === 0
        ? { text: withTypo(term), kind: "typo", relevant }
        : { text: term.slice(0, Math.max(4, Math.ceil(term.length * 0.6))), kind: "prefix", relevant },
    );
    // A fact's two rarest-looking words together, as a student recalls them.
    const words = subtopic.facts[1].split(/\W+/).filter((word) => word.length >= 6);
    if (words.length >= 2) queries.push({ text: `${words[0]} ${words[1]}`.toLowerCase(), kind: "cross-type", relevant });
  }
  for (const course of COURSES) {
    const courseId = courseIds.get(course.name);
    if (courseId) queries.push({ text: course.code.toLowerCase(), kind: "course", relevant: [courseId] });
  }
  return { records, queries };
}

function titleFor(type: BenchRecordType, subject: string, lecture: number): string {
  switch (type) {
    case "note":
      return `Lecture ${lecture}: ${subject}`;
    case "flashcard_set":
      return `${subject} flashcards`;
    case "quiz":
      return `${subject} quiz`;
    case "study_guide":
      return `Study guide: ${subject}`;
    default:
      return subject;
  }
}

function questionFor(fact: string): string {
  const words = fact.split(" ");
  return `What about ${words.slice(0, 3).join(" ").toLowerCase()}?`;
}

/** The word with two inner letters swapped ("chlorophyll" → "chlorohpyll"): one typo, as a fast typist makes. */
export function withTypo(word: string): string {
  if (word.length < 5) return word;
  const at = Math.floor(word.length / 2);
  return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
}

/** precision@k and reciprocal rank of one ranked answer against its labels. */
export function scoreRanking(ranked: string[], relevant: readonly string[], k = 5): { precisionAtK: number; reciprocalRank: number } {
  const wanted = new Set(relevant);
  const top = ranked.slice(0, k);
  const hits = top.filter((id) => wanted.has(id)).length;
  const firstRelevant = ranked.findIndex((id) => wanted.has(id));
  return { precisionAtK: hits / Math.min(k, Math.max(1, wanted.size)), reciprocalRank: firstRelevant < 0 ? 0 : 1 / (firstRelevant + 1) };
}
