// A typedoc plugin for the heed docs site. heed's classes extend a class made by a call (`Schema.TaggedError<E>()(
// "E", { fields })`, `Schema.Class<C>(…)({ fields })`, `Context.Service<S, Shape>()(…)`): the fields are written in
// the class's own declaration, but typedoc reports each as "Inherited from" the whole call expression. This drops
// that label for members inherited from such an anonymous base, so a page shows them as the class's own API.
// (Members of Effect's own classes are not documented at all: `excludeExternals` in typedoc.json.)
import { type Application, Converter, DeclarationReflection, type SignatureReflection } from "typedoc"

export const load = (app: Application): void => {
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      const owners = reflection instanceof DeclarationReflection ? [reflection, ...(reflection.signatures ?? [])] : []
      for (const owner of owners as Array<DeclarationReflection | SignatureReflection>) {
        if (owner.inheritedFrom?.name.includes("(")) delete owner.inheritedFrom
      }
    }
  })
}
