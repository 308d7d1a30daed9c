export { type CloneOptions, clone } from "./clone.ts";
