// The scratch-space port lives in @study/storage (shared with the documents worker).
export type { ScratchFolder, ScratchSpace } from "@study/storage/port";
