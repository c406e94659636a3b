import { findDefinitions } from "../../../../src/adapters/generation/offline/definitions";
import { tagUnits } from "../../../../src/adapters/generation/offline/tagging";
import { buildTextUnits } from "../../../../src/adapters/generation/offline/text-units";

async function definitionsIn(transcript: string) {
  const units = buildTextUnits([{ noteId: "n", title: "T", transcript, segments: [], userNotes: [] }]);
  return findDefinitions(units, await tagUnits(units, async () => undefined));
}

describe("findDefinitions", () => {
  it('reads "X is/are …" up to the end of its clause', async () => {
    const [glycolysis, enzymes] = await definitionsIn(
      "So glycolysis is the first stage of cellular respiration, and it splits glucose. Enzymes are proteins that speed up reactions.",
    );
    expect(glycolysis).toMatchObject({
      term: "glycolysis",
      termKey: "glycolysis",
      verb: "is",
      description: "the first stage of cellular respiration",
    });
    expect(glycolysis.statement).toBe("Glycolysis is the first stage of cellular respiration.");
    expect(enzymes).toMatchObject({ termKey: "enzyme", verb: "are", description: "proteins that speed up reactions" });
  });

  it("keeps another name given with the term, and its article", async () => {
    const [atp, krebs] = await definitionsIn(
      "ATP, or adenosine triphosphate, is the energy currency of the cell. The Krebs cycle, also known as the citric acid cycle, is a series of eight reactions.",
    );
    expect(atp).toMatchObject({ term: "ATP", alias: "adenosine triphosphate", article: null, description: "the energy currency of the cell" });
    expect(krebs).toMatchObject({ term: "Krebs cycle", alias: "citric acid cycle", article: "the", description: "a series of eight reactions" });
    expect(krebs.statement).toBe("The Krebs cycle is a series of eight reactions.");
  });

  it('reads "refers to", "means" and "is defined as"', async () => {
    const definitions = await definitionsIn(
      "Oxidative phosphorylation refers to the production of ATP using an electron gradient. " +
        "Substrate-level phosphorylation means making ATP directly from a substrate molecule. " +
        "A price ceiling is defined as a legal maximum price for a good.",
    );
    expect(definitions.map((definition) => [definition.term, definition.verb, definition.description])).toEqual([
      ["Oxidative phosphorylation", "refers to", "the production of ATP using an electron gradient"],
      ["Substrate-level phosphorylation", "means", "making ATP directly from a substrate molecule"],
      ["price ceiling", "is defined as", "a legal maximum price for a good"],
    ]);
  });

  it('takes "… is called X" the other way round, and "This step is called X" from the sentence before', async () => {
    const [cristae, oxidation] = await definitionsIn(
      "The folds of the inner membrane are called cristae. Pyruvate is turned into acetyl CoA inside the matrix. This step is called pyruvate oxidation.",
    );
    expect(cristae).toMatchObject({
      term: "cristae",
      description: "the folds of the inner membrane",
      statement: "Cristae are the folds of the inner membrane.",
    });
    expect(oxidation).toMatchObject({ term: "pyruvate oxidation", description: "Pyruvate is turned into acetyl CoA inside the matrix", unitId: 1 });
    expect(oxidation.source).toBe("Pyruvate is turned into acetyl CoA inside the matrix. This step is called pyruvate oxidation.");
  });

  it("finds a definition in unpunctuated speech where the speaker restarts the sentence", async () => {
    const [definition] = await definitionsIn(
      "lets start with glycolysis glycolysis is the first stage of cellular respiration and it splits glucose",
    );
    expect(definition).toMatchObject({ term: "glycolysis", description: "the first stage of cellular respiration" });
  });

  it("does not take what the lecture says about itself for a definition (one sentence per kind of such subject)", async () => {
    const definitions = await definitionsIn(
      [
        "The result is a net gain of two ATP per glucose.", // outcome
        "The outcome is a proton gradient across the inner membrane.",
        "The difference is a matter of where the electrons end up.", // comparison
        "The topic today is cellular respiration in animal cells.", // agenda
        "The focus is the electron transport chain in the mitochondrion.",
        "The goal is a steady supply of ATP for the cell.", // aim
        "The purpose is the recycling of NAD plus for glycolysis.",
        "The takeaway is a simple rule about oxygen and ATP.", // summary
        "The conclusion is a clear link between oxygen and ATP yield.",
        "The key is the gradient of protons across the membrane.",
        "The lesson is a warning about counting ATP twice.",
      ].join(" "),
    );
    expect(definitions).toEqual([]);
  });

  it("still reads such nouns as terms where the text names them or they head a phrase", async () => {
    const definitions = await definitionsIn(
      "The point underground where the slip starts is called the focus. The potential difference is the work done per unit charge.",
    );
    expect(definitions.map((definition) => definition.termKey)).toEqual(["focus", "potential difference"]);
  });

  it("ignores copulas that define nothing", async () => {
    const definitions = await definitionsIn(
      "It is called a cycle because it goes around again. Spending ATP means breaking off a phosphate group. " +
        "That is the whole reason you breathe oxygen. ATP is produced in the mitochondria. If the price is above the equilibrium price we get a surplus.",
    );
    expect(definitions).toEqual([]);
  });
});
